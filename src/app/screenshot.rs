//! Screenshots: the window's pixels to a PNG file, written to a temporary file and renamed
//! into place (`files::AtomicFile`) so a reader never sees half a file.

use std::path::Path;

use crate::files::{escape, write_atomic};

/// Grab what is on screen now (call after everything, egui included, is drawn) and save it
/// to `path` as an opaque RGBA PNG.
pub fn save_screen(path: &Path) -> Result<(), String> {
    let image = macroquad::texture::get_screen_data();
    let (w, h) = (image.width as u32, image.height as u32);
    // The GL framebuffer is bottom-up: flip rows. Force alpha to opaque, since blending may
    // leave the framebuffer's alpha below one where nothing covered the background.
    let rgba = flip_rows_opaque(&image.bytes, w as usize, h as usize);
    write_png(path, w, h, &rgba)
}

/// Rows in reverse order, alpha set to 255.
pub fn flip_rows_opaque(bytes: &[u8], width: usize, height: usize) -> Vec<u8> {
    let row = width * 4;
    let mut out = Vec::with_capacity(row * height);
    for y in (0..height).rev() {
        let start = y * row;
        out.extend_from_slice(&bytes[start..start + row]);
    }
    for px in out.chunks_exact_mut(4) {
        px[3] = 255;
    }
    out
}

/// Write an 8-bit RGBA image to `path` (encoded in memory, then `files::write_atomic`: a temporary file in
/// the same folder renamed into place; a device, folder or link is refused).
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        format!("cannot write screenshot {}: {what}: {e}", escape(path))
    };
    if rgba.len() != width as usize * height as usize * 4 {
        return Err(fail("size", &"pixel buffer does not match the image size"));
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| fail("encode", &e))?;
    writer
        .write_image_data(rgba)
        .map_err(|e| fail("encode", &e))?;
    writer.finish().map_err(|e| fail("encode", &e))?;
    write_atomic(path, bytes).map_err(|e| format!("cannot write screenshot {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip_and_flip() {
        let dir = std::env::temp_dir().join(format!("impulse-shot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.png");
        // 2x2, bottom-up: bottom row red, top row blue, alpha 0.
        let gl = [
            255, 0, 0, 0, 255, 0, 0, 0, //
            0, 0, 255, 0, 0, 0, 255, 0,
        ];
        let rgba = flip_rows_opaque(&gl, 2, 2);
        write_png(&path, 2, 2, &rgba).unwrap();
        // No temporary file is left: the folder holds the screenshot only.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.png"]);
        let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert_eq!(&buf[..4], &[0, 0, 255, 255], "top row first, opaque");
        assert_eq!(&buf[8..12], &[255, 0, 0, 255]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unwritable_path_is_an_error() {
        let err = write_png(Path::new("/no/such/dir/a.png"), 1, 1, &[0; 4]).unwrap_err();
        assert!(err.contains("/no/such/dir/a.png"), "{err}");
        assert!(write_png(Path::new("/tmp/x.png"), 2, 2, &[0; 4]).is_err());
    }
}

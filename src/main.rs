fn main() {
    println!("Impulse testbed: coming up.");
}

//! Scene errors: where the problem is (file, and line and column for syntax, or the body,
//! joint or generator and field for meaning) and what would be valid.

use std::fmt;

/// One problem in a scene file.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneError {
    /// The file could not be read.
    Io { file: String, message: String },
    /// Malformed RON, an unknown field or variant, a value of the wrong type.
    /// Printed `file:line:col: message`.
    Syntax {
        file: String,
        line: usize,
        col: usize,
        message: String,
    },
    /// Well-formed but invalid: printed `file: <what>: message`, where `what` is e.g.
    /// `body "bob"`, `body #3`, `joint "pin"`, `generator #1 (Pyramid)` or `settings`.
    Semantic {
        file: String,
        what: String,
        message: String,
    },
}

impl SceneError {
    pub fn file(&self) -> &str {
        match self {
            SceneError::Io { file, .. }
            | SceneError::Syntax { file, .. }
            | SceneError::Semantic { file, .. } => file,
        }
    }

    /// The message without the location.
    pub fn message(&self) -> &str {
        match self {
            SceneError::Io { message, .. }
            | SceneError::Syntax { message, .. }
            | SceneError::Semantic { message, .. } => message,
        }
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Io { file, message } => write!(f, "{file}: {message}"),
            SceneError::Syntax {
                file,
                line,
                col,
                message,
            } => write!(f, "{file}:{line}:{col}: {message}"),
            SceneError::Semantic {
                file,
                what,
                message,
            } => write!(f, "{file}: {what}: {message}"),
        }
    }
}

impl std::error::Error for SceneError {}

/// Every problem found in one file (never empty).
#[derive(Clone, Debug, PartialEq)]
pub struct SceneErrors(pub Vec<SceneError>);

impl SceneErrors {
    pub fn one(error: SceneError) -> Self {
        SceneErrors(vec![error])
    }

    pub fn iter(&self) -> impl Iterator<Item = &SceneError> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for SceneErrors {
    /// One error per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SceneErrors {}

/// Turn a RON error into a syntax error with the file's position and a plain message.
pub(crate) fn from_ron(file: &str, err: &ron::error::SpannedError) -> SceneError {
    let message = match &err.code {
        ron::Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => format!(
            "unknown field `{found}`{}; valid fields: {}",
            in_outer(outer),
            expected.join(", ")
        ),
        ron::Error::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => {
            let what = match outer.as_deref() {
                Some("GeometryFile") => "shape",
                Some("JointKindFile") => "joint kind",
                Some("Generator") => "generator",
                Some("BodyKindFile") => "body kind",
                Some("SolverFile") => "solver",
                _ => "variant",
            };
            format!("unknown {what} `{found}`; valid: {}", expected.join(", "))
        }
        ron::Error::MissingStructField { field, outer } => {
            format!("missing field `{field}`{}", in_outer(outer))
        }
        ron::Error::DuplicateStructField { field, outer } => {
            format!("field `{field}`{} is given twice", in_outer(outer))
        }
        ron::Error::ExpectedDifferentStructName { expected, found } => format!(
            "unexpected name `{found}` before `(`: {} is written `(field: value, ...)`",
            file_word(expected)
        ),
        ron::Error::ExpectedNamedStructLike(name) => {
            format!(
                "expected {} here, written `(field: value, ...)`",
                file_word(name)
            )
        }
        ron::Error::ExpectedStructName(name) => {
            format!(
                "expected {} here, written `(field: value, ...)`",
                file_word(name)
            )
        }
        ron::Error::SuggestRawIdentifier(found) | ron::Error::InvalidIdentifier(found) => {
            format!(
                "expected a field name or a variant name (letters, digits and `_`), found \
                 `{found}`"
            )
        }
        ron::Error::ExceededRecursionLimit => {
            "the file nests brackets too deeply to be a scene".to_string()
        }
        other => other.to_string(),
    };
    SceneError::Syntax {
        file: file.to_string(),
        line: err.span.start.line,
        col: err.span.start.col,
        message: in_file_words(&message),
    }
}

/// The serde type names of the format, and what a file calls them.
const FILE_WORDS: &[(&str, &str)] = &[
    ("SceneFile", "the scene"),
    ("CameraFile", "the camera"),
    ("SettingsFile", "the settings"),
    ("SolverFile", "a solver"),
    ("BodyKindFile", "a body kind"),
    ("BodyFile", "a body"),
    ("ShapeFile", "a shape"),
    ("GeometryFile", "a shape's geometry"),
    ("FilterFile", "a filter"),
    ("JointKindFile", "a joint kind"),
    ("JointStateFile", "a joint state"),
    ("JointFile", "a joint"),
    ("MaterialFile", "a material"),
    ("WorldStateFile", "the state"),
    ("BodyStateFile", "a body state"),
    ("ContactFile", "a contact"),
    ("ManifoldPointFile", "a contact point"),
    ("ManifoldCacheFile", "a contact cache"),
    ("RevoluteFile", "a revolute joint"),
    ("PrismaticFile", "a prismatic joint"),
    ("WheelFile", "a wheel joint"),
    ("WeldFile", "a weld joint"),
    ("AngleFile", "an angle joint"),
    ("PulleyFile", "a pulley joint"),
    ("DistanceFile", "a distance joint"),
    ("MotorFile", "a motor joint"),
    ("FrictionFile", "a friction joint"),
    ("MouseFile", "a mouse joint"),
    ("Generator", "a generator"),
    ("PyramidFile", "a pyramid generator"),
    ("StackFile", "a stack generator"),
    ("GridFile", "a grid generator"),
    ("ChainFile", "a chain generator"),
    ("ScatterFile", "a scatter generator"),
    ("RepeatFile", "a repeat generator"),
];

/// A type name in the words of the file format (`ShapeFile`: "a shape").
fn file_word(name: &str) -> String {
    FILE_WORDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or_else(|| format!("`{name}`"), |(_, w)| w.to_string())
}

/// Replace any internal type name left in a parser message by the file's word for it, and
/// drop parser advice that means nothing to a scene author.
fn in_file_words(message: &str) -> String {
    let mut out = message.to_string();
    for (name, word) in FILE_WORDS {
        for pattern in [
            format!("struct `{name}`"),
            format!("enum `{name}`"),
            format!("`{name}`"),
        ] {
            out = out.replace(&pattern, word);
        }
        for pattern in [format!("struct {name}"), format!("enum {name}")] {
            out = out.replace(&pattern, word);
        }
        // A bare name, not inside a longer word.
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(name) {
            let before = rest[..i].chars().next_back();
            let after = rest[i + name.len()..].chars().next();
            let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            result.push_str(&rest[..i]);
            if word_char(before) || word_char(after) {
                result.push_str(name);
            } else {
                result.push_str(word);
            }
            rest = &rest[i + name.len()..];
        }
        result.push_str(rest);
        out = result;
    }
    out
}

/// " in <thing>" for a serde type name, in the words of the file format.
fn in_outer(outer: &Option<String>) -> String {
    let Some(outer) = outer.as_deref() else {
        return String::new();
    };
    let name = match outer {
        "Scene" => "the scene",
        "CameraFile" => "camera",
        "SettingsFile" => "settings",
        "BodyFile" => "a body",
        "ShapeFile" => "a shape",
        "FilterFile" => "filter",
        "JointFile" => "a joint",
        "MaterialFile" => "material",
        "WorldStateFile" => "state",
        "BodyStateFile" => "a body state",
        "ContactFile" => "a contact",
        "ManifoldPointFile" => "a contact point",
        other => other.strip_suffix("File").unwrap_or(other),
    };
    format!(" in {name}")
}

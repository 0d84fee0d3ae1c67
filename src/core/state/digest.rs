//! A transcript's content hash as the state keeps it: the 32 bytes its hex digest spells,
//! not the 64 characters, since the state holds one for every session ever seen.

use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};

/// A content hash. A lower-case hex digest of 32 bytes (what handbook writes) is kept as its
/// bytes; any other text (a state edited by hand) is kept as it came. Either way it is
/// written back exactly as it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Digest {
    Bytes([u8; 32]),
    Text(Box<str>),
}

impl Digest {
    /// True when this is the hash `text` spells.
    pub(crate) fn is(&self, text: &str) -> bool {
        match (self, bytes_of(text)) {
            (Digest::Bytes(bytes), Some(other)) => *bytes == other,
            (Digest::Text(own), None) => **own == *text,
            _ => false,
        }
    }
}

/// The bytes of a lower-case hex digest of 32 bytes; `None` for any other text.
fn bytes_of(text: &str) -> Option<[u8; 32]> {
    let text = text.as_bytes();
    if text.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0; 32];
    for (byte, pair) in bytes.iter_mut().zip(text.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(bytes)
}

impl From<&str> for Digest {
    fn from(text: &str) -> Digest {
        bytes_of(text).map_or_else(|| Digest::Text(text.into()), Digest::Bytes)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Digest::Bytes(bytes) => bytes.iter().try_for_each(|b| write!(f, "{b:02x}")),
            Digest::Text(text) => f.write_str(text),
        }
    }
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Digest;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content hash")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Digest, E> {
                Ok(Digest::from(text))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_reads_back_as_it_was_written() {
        let hex = "778c9f170c71a1ec3516af679d7d630a9442b609f757bd031eaf5fc944264b41";
        for text in [hex, "h", &hex.to_uppercase(), &hex[..63], ""] {
            let digest = Digest::from(text);
            assert_eq!(digest.to_string(), text);
            assert!(digest.is(text));
            let json = serde_json::to_string(&digest).unwrap();
            assert_eq!(serde_json::from_str::<Digest>(&json).unwrap(), digest);
        }
        assert!(matches!(Digest::from(hex), Digest::Bytes(_)));
        assert!(!Digest::from(hex).is(&hex.to_uppercase()), "another text is another hash");
        assert!(!Digest::from("h").is(hex));
    }
}

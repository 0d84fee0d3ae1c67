//! Integration tests: the `handbook` binary run on the fixtures, with a scrubbed environment.

//! Reading what an agent sends a hook on stdin, without ever making the hook wait long or
//! fail: a terminal is not read, and a stream left open is given up on after a moment.

use std::io::{IsTerminal, Read};
use std::sync::mpsc;
use std::time::Duration;

use crate::core::hook::{HookInput, MAX_INPUT};

/// How long a hook waits for its input. The agents write it as they start the hook; a stdin
/// inherited from elsewhere and never closed costs no more than this.
const WAIT: Duration = Duration::from_millis(500);

/// The hook's input: what stdin holds, read up to [`MAX_INPUT`] bytes, or nothing when stdin
/// is a terminal, closed, unreadable or silent.
pub(crate) fn hook_input() -> HookInput {
    if std::io::stdin().is_terminal() {
        return HookInput::default();
    }
    let (sender, receiver) = mpsc::channel();
    // A reader blocked on a silent stream is left behind; it ends with the process.
    let spawned = std::thread::Builder::new().name("hook-stdin".into()).spawn(move || {
        let _ = sender.send(read_bounded(&mut std::io::stdin().lock()));
    });
    match spawned {
        Ok(_) => receiver.recv_timeout(WAIT).map(|bytes| HookInput::parse(&bytes)).unwrap_or_default(),
        Err(_) => HookInput::default(),
    }
}

/// Up to one byte more than [`MAX_INPUT`] (so too much reads as too much), stopping early once
/// a whole JSON object has arrived.
fn read_bounded(reader: &mut impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    while bytes.len() <= MAX_INPUT {
        match reader.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
        }
        if HookInput::is_complete(&bytes) {
            break;
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_at_a_whole_object_or_past_the_limit() {
        // A reader that would fail if read after the object.
        struct Then<'a>(&'a [u8], bool);
        impl Read for Then<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.1 {
                    return Err(std::io::Error::other("read past the object"));
                }
                self.1 = true;
                buf[..self.0.len()].copy_from_slice(self.0);
                Ok(self.0.len())
            }
        }
        let object = b"{\"cwd\":\"/w\"}\n";
        assert_eq!(read_bounded(&mut Then(object, false)), object);
        let endless = std::io::repeat(b'x');
        let read = read_bounded(&mut endless.take(10 * MAX_INPUT as u64)).len();
        assert!(read > MAX_INPUT && read <= MAX_INPUT + 8192, "{read}");
    }
}

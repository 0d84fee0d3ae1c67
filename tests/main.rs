//! Integration tests: the `handbook` binary run on the fixtures, with a scrubbed environment
//! (HOME, XDG_* and the agents' homes point into temporary folders; no HANDBOOK_* variable
//! leaks in from the machine running the tests).

mod bad_input;
mod commands;
mod common;
mod compressed;
mod config;
mod consolidate;
mod conventions;
mod damaged;
mod databases;
mod docs;
mod echo;
mod engines;
mod external;
mod extract;
mod firstrun;
mod fixtures;
mod gemini;
mod hostile;
mod hostile_readers;
mod injection;
mod integrate;
mod interrupt;
mod links;
mod mcp;
mod opencode;
mod opencode_db;
mod pi;
mod quality;
mod search;
mod secrets;
mod stub;
mod summary;
mod summary_hook;
mod threads;
mod trust;

//! harvey macros

//! Typed ABI values for the fuzzer: generation and mutation for every ABI type, leaf paths,
//! simplification for shrinking, and the dictionary of interesting constants.

//! Misuse of `#[harvey::invariant]` is a compile error the macro reports on the offending
//! token. Each `tests/ui/*.rs` case has its expected compiler output next to it in a
//! `.stderr` file; regenerate them with `TRYBUILD=overwrite cargo test --test it macro_ui::`.

#[test]
fn macro_misuse_is_a_spanned_compile_error() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

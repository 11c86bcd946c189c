//! Every rejected model is one compile error on the offending tokens, whose message
//! names the alternatives (`tests/ui/*.rs` with the expected `.stderr`).

#[test]
fn rejected_models() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

//! Checking the invariant function's shape and emitting the `#[test]` around it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn, ItemMod, LitStr, Pat, ReturnType, Type};

use crate::args::{InvariantArgs, SuiteArgs};

/// Attributes moved from the invariant function to the emitted test.
const TEST_ATTRIBUTES: &[&str] = &["should_panic", "ignore"];

/// The function must look like `fn name(chain: &Chain) -> R`; anything else is reported on
/// the part that is wrong. Whether `R` is `bool` or `Result<(), E: Display>` is left to the
/// type checker through `harvey::__private::IntoCheck`, so that error points at `R` too.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    check_plain(sig, "an invariant")?;
    if sig.inputs.len() != 1 || matches!(sig.inputs.first(), Some(FnArg::Receiver(_))) {
        return Err(syn::Error::new(
            sig.inputs.span(),
            "an invariant takes exactly one argument: `chain: &Chain`",
        ));
    }
    check_returns(sig, "an invariant")
}

/// The function `sig` (of `kind`: "an invariant", "a property") must be a plain Rust
/// function: not async, unsafe, `extern` or generic.
fn check_plain(sig: &syn::Signature, kind: &str) -> syn::Result<()> {
    let wrong =
        |span: proc_macro2::Span, what: &str| Err(syn::Error::new(span, format!("{kind} {what}")));
    if let Some(asyncness) = sig.asyncness {
        return wrong(asyncness.span(), "cannot be async");
    }
    if let Some(unsafety) = sig.unsafety {
        return wrong(unsafety.span(), "cannot be unsafe");
    }
    if let Some(abi) = &sig.abi {
        return wrong(abi.span(), "is a plain Rust function (no `extern`)");
    }
    if !sig.generics.params.is_empty() {
        return wrong(sig.generics.span(), "cannot be generic");
    }
    Ok(())
}

/// The function `sig` (of `kind`) must return a check; which one is left to the type
/// checker.
fn check_returns(sig: &syn::Signature, kind: &str) -> syn::Result<()> {
    if let ReturnType::Default = sig.output {
        return Err(syn::Error::new(
            sig.ident.span(),
            format!(
                "{kind} returns `bool`, `Result<(), E>` or `Result<bool, E>` with `E: Display`"
            ),
        ));
    }
    Ok(())
}

/// Where an error about what `function` returns belongs: its return type, else its name.
fn output_span(function: &ItemFn) -> proc_macro2::Span {
    match &function.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => function.sig.ident.span(),
    }
}

/// Whether `attr` is about the test itself (`should_panic`, `ignore`).
fn is_test_attribute(attr: &syn::Attribute) -> bool {
    TEST_ATTRIBUTES
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// Takes the attributes about the test itself (`should_panic`, `ignore`) off the item that
/// carries `attrs` (the function, or the module of `#[harvey::invariants]`), for the emitted
/// `#[test]`: on the item they would do nothing. A `#[test]` of the user's is an error
/// (`#[harvey::<attribute>]` makes `what`: "the function a test", ...).
fn test_attributes(
    attrs: &mut Vec<syn::Attribute>,
    attribute: &str,
    what: &str,
) -> syn::Result<Vec<syn::Attribute>> {
    if let Some(test) = attrs.iter().find(|a| a.path().is_ident("test")) {
        return Err(syn::Error::new(
            test.span(),
            format!("remove `#[test]`: `#[harvey::{attribute}]` already makes {what}"),
        ));
    }
    let (test_attrs, own_attrs) = attrs.drain(..).partition::<Vec<_>, _>(is_test_attribute);
    *attrs = own_attrs;
    Ok(test_attrs)
}

/// The `#[test]` that runs the campaign of one invariant, the function kept beside it.
pub(crate) fn invariant_test(
    args: InvariantArgs,
    mut function: ItemFn,
) -> syn::Result<TokenStream> {
    check_signature(&function)?;
    let test_attrs = test_attributes(&mut function.attrs, "invariant", "the function a test")?;
    let name = keep_beside_test(&mut function);
    let check = check_of(&function);
    let run = run_invariants(&args, &name, &[(name.clone(), check)]);
    Ok(quote! {
        #function

        #[test]
        #(#test_attrs)*
        fn #name() {
            #run
        }
    })
}

/// Renames the user's `function` to `__harvey_<name>` and returns its name, the test's: the
/// function goes next to the test, not inside it, because a build without `--test` drops
/// `#[test]` functions unchecked, and the function must type-check in every build (rustdoc
/// compiles the README's and the book's examples without `--test`). It is hidden and allowed
/// to be unused, which it is outside tests.
fn keep_beside_test(function: &mut ItemFn) -> syn::Ident {
    let name = function.sig.ident.clone();
    function.sig.ident = syn::Ident::new(&format!("__harvey_{name}"), name.span());
    function.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    function
        .attrs
        .push(syn::parse_quote!(#[allow(dead_code, non_snake_case)]));
    name
}

/// The module, with one `#[test]` (`invariants`) added that runs one campaign checking
/// every function of the module after every call. Every function must be an invariant: a
/// helper left in the module would otherwise be silently never checked.
pub(crate) fn invariants_test(
    args: InvariantArgs,
    mut module: ItemMod,
) -> syn::Result<TokenStream> {
    let Some((_, items)) = &mut module.content else {
        return Err(syn::Error::new(
            module.span(),
            "`#[harvey::invariants]` goes on an inline module: `mod vault { fn solvent(chain: &Chain) -> bool { .. } }`",
        ));
    };
    let mut checks = Vec::new();
    for item in items.iter_mut() {
        let Item::Fn(function) = item else { continue };
        check_signature(function).map_err(|e| {
            syn::Error::new(
                e.span(),
                format!(
                    "{e} (every function of a `#[harvey::invariants]` module is an invariant; move helpers out of it)"
                ),
            )
        })?;
        if let Some(attr) = function.attrs.iter().find(|a| is_test_attribute(a)) {
            return Err(syn::Error::new(
                attr.span(),
                "put `should_panic`/`ignore` on the module: its one test runs every invariant",
            ));
        }
        checks.push((function.sig.ident.clone(), check_of(function)));
    }
    if checks.is_empty() {
        return Err(syn::Error::new(
            module.ident.span(),
            "this module has no invariant: add `fn name(chain: &Chain) -> bool` (or a `harvey::Result<()>`)",
        ));
    }
    // `should_panic`/`ignore` on the module belong to its test.
    let test_attrs = test_attributes(&mut module.attrs, "invariants", "the module's test")?;
    let test = syn::Ident::new("invariants", module.ident.span());
    let run = run_invariants(&args, &test, &checks);
    items.push(syn::parse_quote! {
        #[test]
        #(#test_attrs)*
        fn #test() {
            #run
        }
    });
    Ok(quote!(#module))
}

/// `function` as a `&Chain -> Result<(), String>` closure; a return type that is neither
/// `bool` nor a `Result` with a `Display` error is reported on the type.
fn check_of(function: &ItemFn) -> TokenStream {
    let name = &function.sig.ident;
    quote_spanned! { output_span(function) =>
        |chain: &::harvey::chain::Chain| ::harvey::__private::IntoCheck::into_check(#name(chain))
    }
}

/// The call of `harvey::__private::run_rust_test` for invariant test `test` checking
/// `checks`, every one after every call.
fn run_invariants(
    args: &InvariantArgs,
    test: &syn::Ident,
    checks: &[(syn::Ident, TokenStream)],
) -> TokenStream {
    let check_names = checks.iter().map(|(name, _)| name);
    let check_fns = checks.iter().map(|(_, check)| check);
    run_rust_test(
        args,
        test,
        quote! {
            ::harvey::__private::Checks::Invariants(
                &[#((::core::stringify!(#check_names), &#check_fns)),*]
            )
        },
    )
}

/// The call of `harvey::__private::run_rust_test` for test `test` with the attribute's
/// `args` (what to deploy, where the project is, the settings) and `checks` (a
/// `harvey::__private::Checks`).
fn run_rust_test(args: &InvariantArgs, test: &syn::Ident, checks: TokenStream) -> TokenStream {
    let contracts = &args.contracts;
    let setup = match &args.setup {
        // The cast is spanned on the user's path so that a setup with the wrong signature is
        // reported there.
        Some(path) => quote_spanned! { path.span() =>
            ::core::option::Option::Some(#path as fn(&mut ::harvey::chain::Chain) -> ::harvey::Result<()>)
        },
        None => quote!(::core::option::Option::None),
    };
    let root = args.root.as_ref().map_or_else(String::new, LitStr::value);
    let names = args.settings.iter().map(|(name, _)| name);
    let texts = args.settings.iter().map(|(_, text)| text);
    quote! {
        ::harvey::__private::run_rust_test(::harvey::__private::RustTest {
            name: ::core::stringify!(#test),
            module_path: ::core::module_path!(),
            manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
            file: ::core::file!(),
            line: ::core::line!(),
            root: #root,
            contracts: &[#(#contracts),*],
            setup: #setup,
            checks: #checks,
            attributes: &[#((#names, #texts)),*],
        });
    }
}

/// The `#[test]` that runs the campaign of one property: `fn name(chain: &mut Chain, a: T,
/// ..) -> R` (the chain optional), each later parameter a Rust type alloy maps to a
/// Solidity one (`harvey::__private::sol_type_of`, which the type checker holds to it on
/// the parameter's type).
pub(crate) fn property_test(args: InvariantArgs, mut function: ItemFn) -> syn::Result<TokenStream> {
    let sig = &function.sig;
    check_plain(sig, "a property")?;
    check_returns(sig, "a property")?;
    let mut inputs = sig.inputs.iter().peekable();
    // An optional first `&mut Chain`: the chain setup left, for the case's calls.
    let takes_chain = matches!(
        inputs.peek(),
        Some(FnArg::Typed(typed)) if matches!(&*typed.ty, Type::Reference(r) if r.mutability.is_some())
    );
    if takes_chain {
        inputs.next();
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for (index, input) in inputs.enumerate() {
        let FnArg::Typed(typed) = input else {
            return Err(syn::Error::new(
                input.span(),
                "a property cannot be a method",
            ));
        };
        if let Type::Reference(reference) = &*typed.ty {
            return Err(syn::Error::new(
                reference.span(),
                "a property's inputs are values (`U256`, `Address`, `Vec<u8>`, ...); only the first parameter may be `&mut Chain`",
            ));
        }
        let name = match &*typed.pat {
            Pat::Ident(ident) => ident.ident.to_string(),
            _ => format!("arg{index}"),
        };
        names.push(name);
        types.push((*typed.ty).clone());
    }
    if names.is_empty() {
        return Err(syn::Error::new(
            sig.inputs.span(),
            "a property takes inputs to fuzz: `fn name(chain: &mut Chain, amount: U256) -> bool` (without inputs, write an invariant)",
        ));
    }
    let test_attrs = test_attributes(&mut function.attrs, "property", "the function a test")?;
    let name = keep_beside_test(&mut function);
    let user_fn = function.sig.ident.clone();
    let indices = 0..names.len();
    let locals: Vec<syn::Ident> = (0..names.len())
        .map(|i| syn::Ident::new(&format!("__harvey_arg{i}"), proc_macro2::Span::call_site()))
        .collect();
    let chain_arg = takes_chain.then(|| quote!(chain,));
    let call = quote_spanned! { output_span(&function) =>
        ::harvey::__private::IntoCheck::into_check(#user_fn(#chain_arg #(#locals),*))
    };
    let type_names = types.iter();
    let decode_types = types.iter();
    let param_names = names.iter();
    let decode_names = names.iter();
    let run = run_rust_test(
        &args,
        &name,
        quote! {
            ::harvey::__private::Checks::Property {
                params,
                case: &|chain: &mut ::harvey::chain::Chain, args: &[::harvey::__private::DynSolValue]| {
                    let _ = &chain;
                    #(
                        let #locals: #decode_types =
                            ::harvey::__private::decode_arg(#decode_names, &args[#indices])?;
                    )*
                    #call
                },
            }
        },
    );
    // Outside the test, which only `--test` builds compile: every build checks that each
    // input is a type harvey generates, with the error on the type.
    let input_checks = types.iter().map(|ty| {
        quote_spanned! { ty.span() => let _ = ::harvey::__private::sol_type_of::<#ty>; }
    });
    Ok(quote! {
        const _: fn() = || {
            #(#input_checks)*
        };

        #function

        #[test]
        #(#test_attrs)*
        fn #name() {
            let params: &[(&'static str, ::std::string::String)] = &[
                #((#param_names, ::harvey::__private::sol_type_of::<#type_names>())),*
            ];
            #run
        }
    })
}

/// The `#[test]` that runs a Solidity suite. The function it is on is only the test's name:
/// it must be `fn name() {}`.
pub(crate) fn suite_test(args: SuiteArgs, mut function: ItemFn) -> syn::Result<TokenStream> {
    let sig = &function.sig;
    if !sig.inputs.is_empty() || !matches!(sig.output, ReturnType::Default) {
        return Err(syn::Error::new(
            sig.span(),
            "a forge suite test is `fn name() {}`: the suite's contract does the testing",
        ));
    }
    if sig.asyncness.is_some() || sig.unsafety.is_some() || !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.span(),
            "a forge suite test is a plain `fn name() {}`",
        ));
    }
    if !function.block.stmts.is_empty() {
        return Err(syn::Error::new(
            function.block.span(),
            "the body of a forge suite test is never run: leave it empty",
        ));
    }
    let test_attrs = test_attributes(&mut function.attrs, "forge_suite", "the function a test")?;
    let name = &function.sig.ident;
    let suite = &args.suite;
    let root = args.root.map_or_else(String::new, |r| r.value());
    let config = args.config.map_or_else(String::new, |c| c.value());
    let names = args.settings.iter().map(|(name, _)| name);
    let texts = args.settings.iter().map(|(_, text)| text);
    Ok(quote! {
        #[test]
        #(#test_attrs)*
        fn #name() {
            ::harvey::__private::run_suite(::harvey::__private::SuiteTest {
                name: ::core::stringify!(#name),
                module_path: ::core::module_path!(),
                manifest_dir: ::core::env!("CARGO_MANIFEST_DIR"),
                file: ::core::file!(),
                line: ::core::line!(),
                root: #root,
                suite: #suite,
                config: #config,
                attributes: &[#((#names, #texts)),*],
            });
        }
    })
}

//! Parsing and validating the attribute's `name = value` arguments. What to fuzz
//! (`contract`, `contracts`, `setup`) is the macro's own; every other argument is a row of
//! `harvey_settings::SETTINGS`: its literal becomes text and is checked by the row's parser,
//! the same one the runtime applies to the `HARVEY_*` variable.

use harvey_settings::{Literal, SETTINGS, Setting};
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, MetaNameValue, Path, Token};

/// The arguments that say what to fuzz and where the project is, before the settings in
/// the docs' order.
const TARGET_ARGUMENTS: [&str; 4] = ["contract", "contracts", "setup", "root"];

/// The validated attribute arguments.
#[derive(Default)]
pub(crate) struct InvariantArgs {
    /// Contracts to deploy when there is no setup (from `contract` or `contracts`).
    pub(crate) contracts: Vec<LitStr>,
    pub(crate) setup: Option<Path>,
    /// The Solidity project's root relative to the crate (`root = "contracts-dir"`).
    pub(crate) root: Option<LitStr>,
    /// The campaign settings as `(name, text)`, each accepted by its row's parser.
    pub(crate) settings: Vec<(&'static str, String)>,
}

impl InvariantArgs {
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<Self> {
        let pairs = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(attr)?;
        let mut args = InvariantArgs::default();
        let mut seen: Vec<String> = Vec::new();
        for pair in &pairs {
            let name = pair
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let setting = Setting::named(&name);
            if setting.is_none() && !TARGET_ARGUMENTS.contains(&name.as_str()) {
                return Err(unknown(&name, &TARGET_ARGUMENTS, pair.path.span()));
            }
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    pair.path.span(),
                    format!("`{name}` is given twice"),
                ));
            }
            seen.push(name.clone());
            match setting {
                Some(setting) => args
                    .settings
                    .push((setting.name, text(setting, &pair.value)?)),
                None => args.set(&name, &pair.value)?,
            }
        }
        if seen.iter().any(|n| n == "contract") && seen.iter().any(|n| n == "contracts") {
            return Err(syn::Error::new(
                Span::call_site(),
                "give either `contract = \"Name\"` or `contracts = [..]`, not both",
            ));
        }
        if args.contracts.is_empty() && args.setup.is_none() {
            return Err(syn::Error::new(
                Span::call_site(),
                "say what to fuzz: `contract = \"Name\"`, `contracts = [\"A\", \"B\"]` or `setup = my_setup`",
            ));
        }
        Ok(args)
    }

    /// One of [`TARGET_ARGUMENTS`].
    fn set(&mut self, name: &str, value: &Expr) -> syn::Result<()> {
        match name {
            "contract" => self.contracts = vec![string(value)?],
            "contracts" => self.contracts = strings(value)?,
            "root" => self.root = Some(root(value)?),
            _ => self.setup = Some(path(value)?),
        }
        Ok(())
    }
}

/// The validated arguments of `#[harvey::forge_suite("Name", ...)]`.
pub(crate) struct SuiteArgs {
    /// The test contract, `Name` or `path:Name`.
    pub(crate) suite: LitStr,
    /// The Solidity project's root relative to the crate (`root = "contracts-dir"`).
    pub(crate) root: Option<LitStr>,
    /// The Echidna yaml or medusa.json the harness runs with, relative to the project's
    /// root (`config = "test/echidna.yaml"`).
    pub(crate) config: Option<LitStr>,
    /// The campaign settings as `(name, text)`, each accepted by its row's parser.
    pub(crate) settings: Vec<(&'static str, String)>,
}

/// The arguments of `#[harvey::forge_suite]` that are not campaign settings.
const SUITE_ARGUMENTS: [&str; 2] = ["root", "config"];

impl SuiteArgs {
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<Self> {
        let items = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(attr)?;
        let mut items = items.iter();
        let suite = match items.next() {
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(name),
                ..
            })) if !name.value().is_empty() => name.clone(),
            other => {
                return Err(syn::Error::new(
                    other.map_or_else(Span::call_site, Spanned::span),
                    "name the suite's test contract first: #[harvey::forge_suite(\"MyInvariants\")]",
                ));
            }
        };
        let mut args = SuiteArgs {
            suite,
            root: None,
            config: None,
            settings: Vec::new(),
        };
        let mut seen: Vec<String> = Vec::new();
        for item in items {
            let Expr::Assign(assign) = item else {
                return Err(syn::Error::new(
                    item.span(),
                    "expected `name = value` after the suite's name",
                ));
            };
            let name = match &*assign.left {
                Expr::Path(path) => path.path.get_ident().map(|i| i.to_string()),
                _ => None,
            }
            .unwrap_or_default();
            let setting = Setting::named(&name);
            if setting.is_none() && !SUITE_ARGUMENTS.contains(&name.as_str()) {
                return Err(unknown(&name, &SUITE_ARGUMENTS, assign.left.span()));
            }
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    assign.left.span(),
                    format!("`{name}` is given twice"),
                ));
            }
            seen.push(name.clone());
            match setting {
                Some(setting) => args
                    .settings
                    .push((setting.name, text(setting, &assign.right)?)),
                None if name == "root" => args.root = Some(root(&assign.right)?),
                None => args.config = Some(config(&assign.right)?),
            }
        }
        Ok(args)
    }
}

/// `root = "path"`: a non-empty relative path.
/// The error for argument `name`, which is neither one of the attribute's `own` arguments
/// nor a setting: the nearest known name when one is a typo away, then every known name.
fn unknown(name: &str, own: &[&str], span: proc_macro2::Span) -> syn::Error {
    let known: Vec<&str> = own
        .iter()
        .copied()
        .chain(SETTINGS.iter().map(|s| s.name))
        .collect();
    let nearest = known
        .iter()
        .map(|k| (edits(name, k), *k))
        .min()
        .filter(|(distance, _)| *distance <= 2.max(name.len() / 4));
    let hint = nearest.map_or("; expected".to_string(), |(_, k)| {
        format!(": did you mean `{k}`? Expected")
    });
    syn::Error::new(
        span,
        format!(
            "unknown argument `{name}`{hint} one of: {}",
            known.join(", ")
        ),
    )
}

/// The edit distance between `a` and `b` (insertions, deletions, substitutions).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

fn root(value: &Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if !s.value().is_empty() && !s.value().starts_with('/') => Ok(s.clone()),
        _ => Err(syn::Error::new(
            value.span(),
            "expected the project's directory relative to the crate, e.g. \"solidity\"",
        )),
    }
}

/// `config = "file"`: an Echidna yaml or a medusa.json, relative to the project's root.
fn config(value: &Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if [".yaml", ".yml", ".json"]
            .iter()
            .any(|extension| s.value().ends_with(extension))
            && !s.value().starts_with('/') =>
        {
            Ok(s.clone())
        }
        _ => Err(syn::Error::new(
            value.span(),
            "expected an Echidna config (.yaml, .yml) or a medusa config (.json) relative to the project's root, e.g. \"test/echidna.yaml\"",
        )),
    }
}

/// The text `setting`'s parser reads for the literal `value` (see [`Literal`]), checked by
/// that parser: a literal of the wrong kind, or text the parser rejects, is an error on
/// `value`.
fn text(setting: &Setting, value: &Expr) -> syn::Result<String> {
    let text = match (setting.literal, value) {
        (
            Literal::Integer,
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }),
        ) if i.suffix().is_empty() && !i.base10_digits().starts_with('-') => {
            i.base10_digits().to_string()
        }
        (
            Literal::Bool,
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }),
        ) => b.value.to_string(),
        (
            Literal::BoolOrStr,
            Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            }),
        ) => if b.value { "on" } else { "off" }.to_string(),
        (
            Literal::Str | Literal::BoolOrStr | Literal::StrOrList,
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }),
        ) => s.value(),
        (
            Literal::ListOrWords(words),
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }),
        ) if words.contains(&s.value().as_str()) => s.value(),
        (Literal::StrOrList, Expr::Array(array)) if !array.elems.is_empty() => {
            list(setting, array)?
        }
        (Literal::ListOrWords(_), Expr::Array(array)) if array.elems.is_empty() => {
            "none".to_string()
        }
        (Literal::ListOrWords(_), Expr::Array(array)) => list(setting, array)?,
        _ => return Err(wrong_kind(setting, value)),
    };
    setting
        .check(&text)
        .map_err(|why| syn::Error::new(value.span(), why.message()))?;
    Ok(text)
}

/// A list of string literals joined with commas; anything else in it is an error on that
/// element.
fn list(setting: &Setting, array: &syn::ExprArray) -> syn::Result<String> {
    let mut items = Vec::new();
    for element in &array.elems {
        match element {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => items.push(s.value()),
            _ => return Err(wrong_kind(setting, element)),
        }
    }
    Ok(items.join(","))
}

/// A literal `setting` does not take, reported on it.
fn wrong_kind(setting: &Setting, value: &Expr) -> syn::Error {
    syn::Error::new(value.span(), format!("expected {}", setting.expected))
}

fn string(value: &Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if !s.value().is_empty() => Ok(s.clone()),
        _ => Err(syn::Error::new(
            value.span(),
            "expected a contract name string, e.g. \"Vault\"",
        )),
    }
}

fn strings(value: &Expr) -> syn::Result<Vec<LitStr>> {
    match value {
        Expr::Array(array) if !array.elems.is_empty() => {
            let names: Vec<LitStr> = array.elems.iter().map(string).collect::<syn::Result<_>>()?;
            for (i, name) in names.iter().enumerate() {
                if names[..i]
                    .iter()
                    .any(|earlier| earlier.value() == name.value())
                {
                    return Err(syn::Error::new(
                        name.span(),
                        format!("`{}` is listed twice", name.value()),
                    ));
                }
            }
            Ok(names)
        }
        _ => Err(syn::Error::new(
            value.span(),
            "expected a non-empty list of names, e.g. [\"Vault\", \"Token\"]",
        )),
    }
}

fn path(value: &Expr) -> syn::Result<Path> {
    match value {
        Expr::Path(p) => Ok(p.path.clone()),
        _ => Err(syn::Error::new(
            value.span(),
            "expected the path of a `fn(&mut Chain) -> harvey::Result<()>`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_argument_list() {
        let args = InvariantArgs::parse(quote::quote!(
            contracts = ["A", "B"],
            setup = crate::s,
            runs = 10,
            time = "1s",
            depth = 3,
            seed = 7,
            workers = 2,
            prediction = false,
            demand_driven = false,
            dataflow = true,
            targets = ["src/A.sol:4", "src/B.sol:10"],
            require_targets = true,
            panics = ["assert", "overflow"]
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(args.contracts.len(), 2);
        let text = |args: &InvariantArgs, name: &str| {
            args.settings
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| text.clone())
        };
        for (name, expected) in [
            ("runs", "10"),
            ("time", "1s"),
            ("depth", "3"),
            ("seed", "7"),
            ("workers", "2"),
            ("prediction", "false"),
            ("demand_driven", "false"),
            ("dataflow", "true"),
            ("targets", "src/A.sol:4,src/B.sol:10"),
            ("require_targets", "true"),
            ("panics", "assert,overflow"),
        ] {
            assert_eq!(text(&args, name).as_deref(), Some(expected), "{name}");
        }
        assert_eq!(args.settings.len(), 11);
        let none = InvariantArgs::parse(quote::quote!(contract = "A", panics = [])).unwrap();
        assert_eq!(text(&none, "panics").as_deref(), Some("none"));
        let special = InvariantArgs::parse(quote::quote!(
            contract = "A",
            runs = 2_000,
            lookahead = false,
            panics = "all"
        ))
        .unwrap();
        assert_eq!(text(&special, "runs").as_deref(), Some("2000"));
        assert_eq!(text(&special, "lookahead").as_deref(), Some("off"));
        assert_eq!(text(&special, "panics").as_deref(), Some("all"));
        let on = InvariantArgs::parse(quote::quote!(contract = "A", lookahead = true)).unwrap();
        assert_eq!(text(&on, "lookahead").as_deref(), Some("on"));
    }

    #[test]
    fn suite_arguments() {
        let args = SuiteArgs::parse(quote::quote!(
            "test/Vault.t.sol:VaultInvariants",
            root = "solidity",
            runs = 500,
            fail_on_revert = true
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(args.suite.value(), "test/Vault.t.sol:VaultInvariants");
        assert_eq!(args.root.map(|r| r.value()).as_deref(), Some("solidity"));
        assert_eq!(
            args.settings,
            vec![
                ("runs", "500".to_string()),
                ("fail_on_revert", "true".to_string())
            ]
        );
        for bad in [
            quote::quote!(),
            quote::quote!(runs = 5),
            quote::quote!(""),
            quote::quote!("A", contract = "B"),
            quote::quote!("A", runs = 0),
            quote::quote!("A", runs = 5, runs = 6),
            quote::quote!("A", "B"),
            quote::quote!("A", root = "/abs"),
            quote::quote!("A", root = 3),
        ] {
            assert!(SuiteArgs::parse(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_unknown_argument_names_the_nearest_known_one() {
        assert_eq!(edits("runs", "runs"), 0);
        assert_eq!(edits("rnus", "runs"), 2);
        assert_eq!(edits("fail_on_reverts", "fail_on_revert"), 1);
        assert_eq!(edits("", "abc"), 3);
        let message = |name: &str| {
            unknown(name, &TARGET_ARGUMENTS, proc_macro2::Span::call_site()).to_string()
        };
        assert!(message("detector").contains("did you mean `detectors`?"));
        assert!(message("max_reject").contains("did you mean `max_rejects`?"));
        assert!(!message("colour").contains("did you mean"));
        assert!(
            message("colour").contains("; expected one of: contract, contracts, setup, root, runs")
        );
    }

    #[test]
    fn misuse_is_rejected() {
        for bad in [
            quote::quote!(contract = "A", contracts = ["B"]),
            quote::quote!(runs = 5),
            quote::quote!(contract = "A", runs = 0),
            quote::quote!(contract = "A", colour = 1),
            quote::quote!(contract = "A", contract = "B"),
            quote::quote!(contract = 5),
            quote::quote!(contracts = ["A", "A"]),
            quote::quote!(contract = "A", runs = 10u8),
            quote::quote!(contract = "A", depth = -1),
            quote::quote!(contract = "A", prediction = 0),
            quote::quote!(contract = "A", panics = ["overflw"]),
            quote::quote!(contract = "A", panics = "assert"),
            quote::quote!(contract = "A", panics = [1]),
            quote::quote!(contract = "A", time = "3"),
            quote::quote!(contract = "A", time = 3),
            quote::quote!(contract = "A", targets = []),
            quote::quote!(contract = "A", targets = "nonsense"),
            quote::quote!(contract = "A", lookahead = "fast"),
            quote::quote!(contract = "A", depth = 5000000000),
            quote::quote!(contract = "A", prediction = "off"),
        ] {
            assert!(InvariantArgs::parse(bad.clone()).is_err(), "{bad}");
        }
    }
}

//! Parsing and validating the attribute's `name = value` arguments.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, MetaNameValue, Path, Token};

/// The arguments `#[harvey::invariant(...)]` accepts, in the order the docs list them.
const KNOWN: &[&str] = &[
    "contract",
    "contracts",
    "setup",
    "runs",
    "time",
    "depth",
    "seed",
    "workers",
    "prediction",
    "demand_driven",
    "dataflow",
    "targets",
    "require_targets",
    "lookahead",
    "panics",
];

/// The validated attribute arguments.
#[derive(Default)]
pub(crate) struct InvariantArgs {
    /// Contracts to deploy when there is no setup (from `contract` or `contracts`).
    pub(crate) contracts: Vec<LitStr>,
    pub(crate) setup: Option<Path>,
    pub(crate) runs: Option<u64>,
    /// `time`, in milliseconds.
    pub(crate) time_ms: Option<u64>,
    pub(crate) depth: Option<u32>,
    pub(crate) seed: Option<u64>,
    pub(crate) workers: Option<u32>,
    pub(crate) prediction: Option<bool>,
    pub(crate) demand_driven: Option<bool>,
    pub(crate) dataflow: Option<bool>,
    /// The target specification, a list joined with commas.
    pub(crate) targets: Option<String>,
    pub(crate) require_targets: Option<bool>,
    /// The steering configuration's name (`"on"`/`"off"` for the booleans).
    pub(crate) lookahead: Option<String>,
    /// The Panic codes that count, joined with commas (`"none"` for an empty list).
    pub(crate) panics: Option<String>,
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
            if !KNOWN.contains(&name.as_str()) {
                return Err(syn::Error::new(
                    pair.path.span(),
                    format!("unknown argument; expected one of: {}", KNOWN.join(", ")),
                ));
            }
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    pair.path.span(),
                    format!("`{name}` is given twice"),
                ));
            }
            seen.push(name.clone());
            args.set(&name, &pair.value)?;
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

    fn set(&mut self, name: &str, value: &Expr) -> syn::Result<()> {
        match name {
            "contract" => self.contracts = vec![string(value)?],
            "contracts" => self.contracts = strings(value)?,
            "setup" => self.setup = Some(path(value)?),
            "runs" => self.runs = Some(positive(value)?),
            "time" => self.time_ms = Some(duration_ms(value)?),
            "depth" => self.depth = Some(narrow(value)?),
            "seed" => self.seed = Some(integer(value)?),
            "workers" => self.workers = Some(narrow(value)?),
            "prediction" => self.prediction = Some(boolean(value)?),
            "demand_driven" => self.demand_driven = Some(boolean(value)?),
            "dataflow" => self.dataflow = Some(boolean(value)?),
            "targets" => self.targets = Some(targets(value)?),
            "require_targets" => self.require_targets = Some(boolean(value)?),
            "lookahead" => self.lookahead = Some(steering(value)?),
            "panics" => self.panics = Some(panics(value)?),
            _ => unreachable!("checked against KNOWN"),
        }
        Ok(())
    }
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

/// `"diff:<rev>"`, `"file.sol:42"` (comma-separated for several), or a list of
/// `"file.sol:42"` strings; checked for shape here, resolved at run time.
fn targets(value: &Expr) -> syn::Result<String> {
    let lines = |text: &str| {
        text.split(',').map(str::trim).all(|entry| {
            entry.rsplit_once(':').is_some_and(|(file, line)| {
                !file.is_empty() && line.parse::<u32>().is_ok_and(|l| l > 0)
            })
        })
    };
    let shape = "expected targets as \"diff:origin/main\", \"src/Vault.sol:42\" or [\"src/Vault.sol:42\", \"src/Vault.sol:50\"]";
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => {
            let text = s.value();
            let diff = text
                .strip_prefix("diff:")
                .is_some_and(|rev| !rev.trim().is_empty());
            if diff || lines(&text) {
                Ok(text)
            } else {
                Err(syn::Error::new(s.span(), shape))
            }
        }
        Expr::Array(array) if !array.elems.is_empty() => {
            let mut entries = Vec::new();
            for element in &array.elems {
                match element {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) if lines(&s.value()) && !s.value().contains(',') => entries.push(s.value()),
                    _ => return Err(syn::Error::new(element.span(), shape)),
                }
            }
            Ok(entries.join(","))
        }
        _ => Err(syn::Error::new(value.span(), shape)),
    }
}

/// `true`/`false`, or the name of one of ICSE'20's other configurations.
fn steering(value: &Expr) -> syn::Result<String> {
    const NAMES: &[&str] = &["on", "off", "no-analysis", "standard-schedule"];
    let shape = "expected `true`, `false`, \"no-analysis\" or \"standard-schedule\"";
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(if b.value { "on" } else { "off" }.to_string()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if NAMES.contains(&s.value().as_str()) => Ok(s.value()),
        _ => Err(syn::Error::new(value.span(), shape)),
    }
}

/// `["assert", "overflow"]`, `[]`, `"all"` or `"none"`: the Panic codes that count. The
/// names are `harvey::chain::PanicCode::name`'s (the runtime parser is the authority; this
/// list only lets a misspelling fail to compile on its token).
fn panics(value: &Expr) -> syn::Result<String> {
    const NAMES: &[&str] = &[
        "generic",
        "assert",
        "overflow",
        "division-by-zero",
        "enum-conversion",
        "storage-encoding",
        "empty-pop",
        "out-of-bounds",
        "memory",
        "zero-function",
    ];
    let shape = format!(
        "expected a list of Panic code names, e.g. [\"assert\", \"overflow\"], or \"all\" / \"none\"; names: {}",
        NAMES.join(", ")
    );
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if ["all", "none"].contains(&s.value().as_str()) => Ok(s.value()),
        Expr::Array(array) => {
            let mut names = Vec::new();
            for element in &array.elems {
                match element {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) if NAMES.contains(&s.value().as_str()) => names.push(s.value()),
                    _ => return Err(syn::Error::new(element.span(), &shape)),
                }
            }
            Ok(if names.is_empty() {
                "none".to_string()
            } else {
                names.join(",")
            })
        }
        _ => Err(syn::Error::new(value.span(), shape)),
    }
}

fn boolean(value: &Expr) -> syn::Result<bool> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        _ => Err(syn::Error::new(value.span(), "expected `true` or `false`")),
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

fn integer(value: &Expr) -> syn::Result<u64> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) if i.suffix().is_empty() && !i.base10_digits().starts_with('-') => {
            i.base10_parse::<u64>()
        }
        _ => Err(syn::Error::new(
            value.span(),
            "expected an unsigned integer without a suffix, e.g. 1000",
        )),
    }
}

fn positive(value: &Expr) -> syn::Result<u64> {
    match integer(value)? {
        0 => Err(syn::Error::new(value.span(), "must be at least 1")),
        n => Ok(n),
    }
}

fn narrow(value: &Expr) -> syn::Result<u32> {
    u32::try_from(positive(value)?)
        .map_err(|_| syn::Error::new(value.span(), format!("too large: at most {}", u32::MAX)))
}

/// `"30s"`, `"500ms"`, `"2m"`, `"1h"` → milliseconds.
fn duration_ms(value: &Expr) -> syn::Result<u64> {
    let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = value
    else {
        return Err(syn::Error::new(
            value.span(),
            "expected a duration string such as \"30s\"",
        ));
    };
    parse_duration_ms(&s.value()).ok_or_else(|| {
        syn::Error::new(
            s.span(),
            "expected a positive duration such as \"500ms\", \"30s\", \"2m\" or \"1h\"",
        )
    })
}

fn parse_duration_ms(text: &str) -> Option<u64> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let scale = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    number
        .parse::<u64>()
        .ok()?
        .checked_mul(scale)
        .filter(|&ms| ms > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        for bad in ["", "s", "30", "0s", "3 s", "1d", "-1s"] {
            assert_eq!(parse_duration_ms(bad), None, "{bad}");
        }
    }

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
        assert_eq!(
            (args.runs, args.time_ms, args.depth, args.seed, args.workers),
            (Some(10), Some(1000), Some(3), Some(7), Some(2))
        );
        assert_eq!(args.prediction, Some(false));
        assert_eq!(
            (args.demand_driven, args.dataflow),
            (Some(false), Some(true))
        );
        assert_eq!(args.panics.as_deref(), Some("assert,overflow"));
        let none = InvariantArgs::parse(quote::quote!(contract = "A", panics = [])).unwrap();
        assert_eq!(none.panics.as_deref(), Some("none"));
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
        ] {
            assert!(InvariantArgs::parse(bad.clone()).is_err(), "{bad}");
        }
    }
}

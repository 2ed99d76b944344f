//! Which file is which module: each crate root's module tree, followed through its `mod` declarations
//! (with their `#[path]` attributes), as the compiler finds the files.

use std::collections::{BTreeMap, BTreeSet};

use syn::ext::IdentExt;
use syn::punctuated::Punctuated;

/// One crate's sources: paths relative to its `src/`, `/`-separated, with their text.
pub type Sources = BTreeMap<String, String>;

/// A module path from the crate root (empty for the root itself).
pub type ModPath = Vec<String>;

/// A parsed file of a module tree.
pub struct ModFile {
    /// Its path relative to `src/`.
    pub path: String,
    /// The module it is.
    pub module: ModPath,
    /// Its syntax tree.
    pub ast: syn::File,
    /// Reached only through a `#[cfg(test)]` module declaration.
    pub test_only: bool,
}

/// The module tree grown from one crate root (`lib.rs`, `main.rs`, a `bin/` target).
pub struct Tree {
    /// The files it reached, the root first.
    pub files: Vec<ModFile>,
    /// The modules that are files, each with its index in `files`.
    pub file_modules: BTreeMap<ModPath, usize>,
    /// Every module, inline ones too.
    pub modules: BTreeSet<ModPath>,
}

/// The crate roots among the sources.
pub fn roots(sources: &Sources) -> Vec<String> {
    sources
        .keys()
        .filter(|p| {
            let parts: Vec<&str> = p.split('/').collect();
            matches!(
                parts.as_slice(),
                ["lib.rs"] | ["main.rs"] | ["bin", _] | ["bin", _, "main.rs"]
            )
        })
        .cloned()
        .collect()
}

/// Parses one file, naming it on failure.
pub fn parse(path: &str, text: &str) -> syn::File {
    syn::parse_file(text).unwrap_or_else(|e| panic!("{path}: cannot parse: {e}"))
}

/// A file waiting to be read.
struct Pending {
    path: String,
    module: ModPath,
    /// Only tests reach it.
    test_only: bool,
    /// Its `mod x;` files sit beside it (a root, a `mod.rs`, a `#[path]` file), not in a folder of its name.
    mod_rs: bool,
}

impl Tree {
    /// Follows the `mod` declarations from `root`.
    pub fn grow(sources: &Sources, root: &str) -> Tree {
        let mut tree = Tree {
            files: Vec::new(),
            file_modules: BTreeMap::new(),
            modules: BTreeSet::from([Vec::new()]),
        };
        let mut pending = vec![Pending {
            path: root.to_string(),
            module: Vec::new(),
            test_only: false,
            mod_rs: true,
        }];
        while let Some(Pending {
            path,
            module,
            test_only,
            mod_rs,
        }) = pending.pop()
        {
            let ast = parse(&path, &sources[&path]);
            let dir = parent_dir(&path);
            let child_dir = match (mod_rs, module.last()) {
                (false, Some(name)) => join(&dir, name),
                _ => dir.clone(),
            };
            let scope = Scope {
                module: &module,
                child_dir: &child_dir,
                path_dir: &dir,
                test_only,
            };
            tree.declare(sources, &ast.items, &scope, &mut pending);
            tree.file_modules.insert(module.clone(), tree.files.len());
            tree.files.push(ModFile {
                path,
                module,
                ast,
                test_only,
            });
        }
        tree
    }

    /// Records the modules declared in `items`, queueing the files of out-of-line ones.
    fn declare(
        &mut self,
        sources: &Sources,
        items: &[syn::Item],
        scope: &Scope,
        pending: &mut Vec<Pending>,
    ) {
        for item in items {
            let syn::Item::Mod(decl) = item else { continue };
            let name = decl.ident.unraw().to_string();
            let mut module = scope.module.clone();
            module.push(name.clone());
            self.modules.insert(module.clone());
            let test_only = scope.test_only || is_cfg_test(&decl.attrs);
            let inner_dir = join(scope.child_dir, &name);
            match &decl.content {
                Some((_, inner)) => {
                    let inner_scope = Scope {
                        module: &module,
                        child_dir: &inner_dir,
                        path_dir: &inner_dir,
                        test_only,
                    };
                    self.declare(sources, inner, &inner_scope, pending);
                }
                None => {
                    let candidates = match path_attr(&decl.attrs) {
                        Some(p) => vec![(join(scope.path_dir, &p), true)],
                        None => vec![
                            (format!("{inner_dir}.rs"), false),
                            (join(&inner_dir, "mod.rs"), true),
                        ],
                    };
                    if let Some((path, mod_rs)) = candidates
                        .into_iter()
                        .find(|(c, _)| sources.contains_key(c))
                    {
                        pending.push(Pending {
                            path,
                            module,
                            test_only,
                            mod_rs,
                        });
                    }
                }
            }
        }
    }
}

/// Where the declarations of one file (or inline module) are read from.
struct Scope<'a> {
    module: &'a ModPath,
    /// Where its plain `mod x;` files are.
    child_dir: &'a str,
    /// What its `#[path]` attributes are relative to.
    path_dir: &'a str,
    test_only: bool,
}

fn parent_dir(path: &str) -> String {
    path.rsplit_once('/')
        .map_or(String::new(), |(d, _)| d.to_string())
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

/// `#[cfg(test)]`, or a `cfg(all(..))` that needs `test`.
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| a.parse_args::<syn::Meta>().ok())
        .any(|m| needs_test(&m))
}

fn needs_test(meta: &syn::Meta) -> bool {
    match meta {
        syn::Meta::Path(p) => p.is_ident("test"),
        syn::Meta::List(list) if list.path.is_ident("all") => list
            .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|inner| inner.iter().any(needs_test)),
        _ => false,
    }
}

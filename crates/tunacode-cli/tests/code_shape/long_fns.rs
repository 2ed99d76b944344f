//! Functions over the line limit: free functions, methods and traits' default bodies, counted from the
//! signature's first line to the closing brace. Test code is left out: `#[test]` and `#[tokio::test]`
//! functions and anything under `#[cfg(test)]`.

use syn::spanned::Spanned;
use syn::visit::Visit;

use super::modules::is_cfg_test;

/// One function over the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFn {
    /// Path relative to the crate's `src/`.
    pub file: String,
    /// The line of its signature.
    pub line: usize,
    /// `name`, or `Type::name` for a method.
    pub name: String,
    /// Its length in lines.
    pub lines: usize,
}

/// The non-test functions of `ast` longer than `limit` lines.
pub fn long_fns(file: &str, ast: &syn::File, limit: usize) -> Vec<LongFn> {
    let mut finder = Finder {
        file,
        limit,
        owner: None,
        found: Vec::new(),
    };
    finder.visit_file(ast);
    finder.found
}

/// Whether the file is test code by its name: `tests.rs`, `*_tests.rs`, or anything ending in `tests.rs`.
pub fn is_test_file(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|name| name.ends_with("tests.rs"))
}

struct Finder<'f> {
    file: &'f str,
    limit: usize,
    /// The type or trait whose methods are being read.
    owner: Option<String>,
    found: Vec<LongFn>,
}

impl Finder<'_> {
    fn measure(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.span().start().line;
        let last = block.brace_token.span.close().end().line;
        let lines = last + 1 - first;
        if lines > self.limit {
            let name = match &self.owner {
                Some(owner) => format!("{owner}::{}", sig.ident),
                None => sig.ident.to_string(),
            };
            self.found.push(LongFn {
                file: self.file.to_string(),
                line: first,
                name,
                lines,
            });
        }
    }

    fn with_owner(&mut self, owner: Option<String>, visit: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.owner, owner);
        visit(self);
        self.owner = outer;
    }
}

/// `#[test]`, `#[tokio::test]` and the like, or `#[cfg(test)]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    is_cfg_test(attrs)
        || attrs
            .iter()
            .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"))
}

fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            self.measure(&f.sig, &f.block);
            self.with_owner(None, |me| syn::visit::visit_block(me, &f.block));
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_cfg_test(&i.attrs) {
            self.with_owner(type_name(&i.self_ty), |me| {
                syn::visit::visit_item_impl(me, i)
            });
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs) {
            self.measure(&f.sig, &f.block);
            self.with_owner(None, |me| syn::visit::visit_block(me, &f.block));
        }
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if !is_cfg_test(&t.attrs) {
            self.with_owner(Some(t.ident.to_string()), |me| {
                syn::visit::visit_item_trait(me, t)
            });
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default
            && !is_test(&f.attrs)
        {
            self.measure(&f.sig, block);
            self.with_owner(None, |me| syn::visit::visit_block(me, block));
        }
    }
}

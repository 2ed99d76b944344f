//! The file-level import graph: file A depends on file B when a path in A (a `use`, or a path in an
//! expression, a type, a pattern or a macro's tokens) names something in module B. A path resolves to
//! the deepest module on it that is a file, so an item re-exported by a `mod.rs` is a dependency on that
//! `mod.rs`. A `mod` declaration is not a dependency, and neither is a visibility (`pub(crate)`).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::visit::Visit;

use super::modules::{ModPath, Tree};

/// One dependency of a file on another, with the first path seen that makes it.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The file that names the other.
    pub from: String,
    /// The file named.
    pub to: String,
    /// The path as written.
    pub via: String,
    /// Where in `from`.
    pub line: usize,
}

/// A path written in a file, not yet resolved.
struct Written {
    /// The module it is written in (an inline module counts).
    ctx: ModPath,
    segs: Vec<String>,
    line: usize,
    /// The name a `use` binds (`None` for a glob, and for every path that is not a `use`).
    binds: Option<String>,
    is_use: bool,
}

/// Every dependency between the files of one module tree.
pub fn edges(tree: &Tree) -> Vec<Edge> {
    let mut out = Vec::new();
    for file in &tree.files {
        let mut paths = Paths {
            ctx: file.module.clone(),
            found: Vec::new(),
        };
        paths.visit_file(&file.ast);
        let aliases = module_aliases(tree, &paths.found);
        let mut seen = BTreeSet::new();
        for w in &paths.found {
            let Some(target) = resolve(tree, &aliases, w) else {
                continue;
            };
            let to = &tree.files[deepest_file(tree, &target)].path;
            if to != &file.path && seen.insert(to.clone()) {
                let via = w.segs.join("::");
                out.push(Edge {
                    from: file.path.clone(),
                    to: to.clone(),
                    via,
                    line: w.line,
                });
            }
        }
    }
    out
}

/// The modules that `use` items bring into scope under a name, per module of the file.
fn module_aliases(tree: &Tree, found: &[Written]) -> BTreeMap<(ModPath, String), ModPath> {
    let none = BTreeMap::new();
    let mut aliases = BTreeMap::new();
    for w in found.iter().filter(|w| w.is_use) {
        let (Some(name), Some(target)) = (&w.binds, resolve(tree, &none, w)) else {
            continue;
        };
        if tree.modules.contains(&target) {
            aliases.insert((w.ctx.clone(), name.clone()), target);
        }
    }
    aliases
}

/// The absolute module path a written path names, or `None` when it leaves the crate.
fn resolve(
    tree: &Tree,
    aliases: &BTreeMap<(ModPath, String), ModPath>,
    w: &Written,
) -> Option<ModPath> {
    let first = w.segs.first()?.as_str();
    match first {
        "crate" => return Some(w.segs[1..].to_vec()),
        "self" | "super" => {
            let mut base = w.ctx.clone();
            let mut rest = &w.segs[..];
            if rest[0] == "self" {
                rest = &rest[1..];
            }
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        _ => {}
    }
    // A lone name in an expression or type is a local or an item, never a module.
    if !w.is_use && w.segs.len() < 2 {
        return None;
    }
    let mut child = w.ctx.clone();
    child.push(first.to_string());
    if tree.modules.contains(&child) {
        child.extend(w.segs[1..].iter().cloned());
        return Some(child);
    }
    let mut aliased = aliases.get(&(w.ctx.clone(), first.to_string()))?.clone();
    aliased.extend(w.segs[1..].iter().cloned());
    Some(aliased)
}

/// The index of the file of the deepest module on `path` that is a file (at worst the root).
fn deepest_file(tree: &Tree, path: &ModPath) -> usize {
    (0..=path.len())
        .rev()
        .find_map(|n| tree.file_modules.get(&path[..n]).copied())
        .unwrap_or(0)
}

/// Collects every path written in a file.
struct Paths {
    ctx: ModPath,
    found: Vec<Written>,
}

impl Paths {
    fn push(&mut self, segs: Vec<String>, line: usize, binds: Option<String>, is_use: bool) {
        self.found.push(Written {
            ctx: self.ctx.clone(),
            segs,
            line,
            binds,
            is_use,
        });
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.unraw().to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_name(prefix, &n.ident, &n.ident),
            syn::UseTree::Rename(r) => self.use_name(prefix, &r.ident, &r.rename),
            syn::UseTree::Glob(g) => self.push(
                prefix.clone(),
                g.star_token.spans[0].start().line,
                None,
                true,
            ),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(t, prefix)),
        }
    }

    fn use_name(&mut self, prefix: &[String], ident: &syn::Ident, binds: &syn::Ident) {
        let mut segs = prefix.to_vec();
        let name = ident.unraw().to_string();
        let mut bound = binds.unraw().to_string();
        if name == "self" {
            if bound == "self" {
                bound = segs.last().cloned().unwrap_or_default();
            }
        } else {
            segs.push(name);
        }
        self.push(segs, ident.span().start().line, Some(bound), true);
    }

    /// `crate::a::b`, `super::a` and `self::a` sequences in a macro's tokens (not `$crate`).
    fn macro_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let TokenTree::Group(g) = &tokens[i] {
                self.macro_tokens(g.stream());
            }
            let after_dollar =
                i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
            let starts = matches!(&tokens[i], TokenTree::Ident(id) if ["crate", "super", "self"].contains(&id.to_string().as_str()));
            if !starts || after_dollar {
                i += 1;
                continue;
            }
            let line = tokens[i].span().start().line;
            let mut segs = vec![tokens[i].to_string()];
            let mut j = i + 1;
            while let [
                TokenTree::Punct(a),
                TokenTree::Punct(b),
                TokenTree::Ident(id),
                ..,
            ] = &tokens[j.min(tokens.len())..]
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                segs.push(id.unraw().to_string());
                j += 3;
            }
            if segs.len() > 1 {
                self.push(segs, line, None, false);
            }
            i = j;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            self.ctx.push(m.ident.unraw().to_string());
            items.iter().for_each(|i| self.visit_item(i));
            self.ctx.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&u.tree, &mut Vec::new());
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segs = path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.push(segs, line, None, false);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.macro_tokens(mac.tokens.clone());
    }
}

/// The strongly connected components with more than one file (Tarjan's algorithm), each sorted.
pub fn cycles(nodes: &BTreeSet<String>, edges: &[Edge]) -> Vec<Vec<String>> {
    let names: Vec<&String> = nodes.iter().collect();
    let index: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut next = vec![Vec::new(); names.len()];
    for e in edges {
        if let (Some(&a), Some(&b)) = (index.get(&e.from), index.get(&e.to)) {
            next[a].push(b);
        }
    }
    let mut tarjan = Tarjan {
        next,
        order: vec![None; names.len()],
        low: vec![0; names.len()],
        ..Tarjan::default()
    };
    for v in 0..names.len() {
        if tarjan.order[v].is_none() {
            tarjan.connect(v);
        }
    }
    let mut out: Vec<Vec<String>> = tarjan
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut files: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            files.sort();
            files
        })
        .collect();
    out.sort();
    out
}

#[derive(Default)]
struct Tarjan {
    next: Vec<Vec<usize>>,
    order: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: BTreeSet<usize>,
    counter: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan {
    fn connect(&mut self, v: usize) {
        self.order[v] = Some(self.counter);
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack.insert(v);
        for w in self.next[v].clone() {
            match self.order[w] {
                None => {
                    self.connect(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(o) if self.on_stack.contains(&w) => self.low[v] = self.low[v].min(o),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.order[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

//! The shape of `src/`, checked rather than claimed: no import circle between files, the
//! layers of `lib.rs` respected, no file over 500 lines ([`LONG_FILES`] names the
//! exceptions and why), no function over 80 lines ([`LONG_FNS`] would name the exceptions
//! and why; it is empty).
//!
//! Every file of both crates (the library from `src/lib.rs`, the binary from `src/main.rs`) is
//! parsed with `syn`; test-only code (`#[cfg(test)]`) is left out. A file depends on another
//! when one of its `use` declarations or paths (`crate::a::B`, `super::f`, or a name it
//! imported) names an item *defined* in the other: a path through a re-export counts as a
//! dependency on the file that defines the item, and the re-export itself as a dependency of
//! the re-exporting file. A path that names a module only (`use crate::codec;`) is no
//! dependency by itself; the paths that use it are.
//!
//! `cargo test --release --test it -- layout::figures --ignored --nocapture` prints the
//! figures behind these checks (public items, public fields, file and function lengths).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The longest file allowed in src/, in lines.
const MAX_FILE_LINES: usize = 500;
/// Files allowed past [`MAX_FILE_LINES`] for now, each with the reason.
const LONG_FILES: &[(&str, &str)] = &[];
/// The longest function allowed in src/, in lines (signature to closing brace): one that
/// fits a screen.
const MAX_FN_LINES: usize = 80;
/// Functions allowed past [`MAX_FN_LINES`], as (file under src/, function name, reason).
/// Empty: every function of src/ fits; a new entry needs a reason that splitting it would
/// make it harder to read (not that there was no time).
const LONG_FNS: &[(&str, &str, &str)] = &[];

/// The library's layers, lowest first (`lib.rs`): a file may use its own layer and those
/// below it. `hugepages` and `prefetch` are helpers below every layer.
const LAYERS: [&str; 11] = [
    "hugepages",
    "prefetch",
    "shogi",
    "codec",
    "book",
    "io",
    "mate",
    "filter",
    "report",
    "pipeline",
    "cluster",
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// A module: its file, child modules, the names it defines and its `use` declarations.
#[derive(Default)]
struct Module {
    file: PathBuf,
    children: BTreeMap<String, Vec<String>>,
    items: BTreeSet<String>,
    /// (name bound, full path as written); glob imports have name `*`.
    uses: Vec<(String, Vec<String>)>,
}

/// Every module of both crates, by path (`["crate", "shogi", "position"]`, the binary's
/// root is `["bin"]`).
struct Tree {
    modules: BTreeMap<Vec<String>, Module>,
    /// Parsed files with the module path they hold.
    files: Vec<(Vec<String>, syn::File)>,
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Flattens a use tree into (bound name, path) pairs.
fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(String, Vec<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.last() {
                out.push((last.clone(), prefix.clone()));
            }
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            p.push(n.ident.to_string());
            out.push((n.ident.to_string(), p));
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push((r.rename.to_string(), p));
        }
        syn::UseTree::Glob(_) => out.push(("*".into(), prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

impl Tree {
    fn load() -> Tree {
        let mut tree = Tree {
            modules: BTreeMap::new(),
            files: Vec::new(),
        };
        tree.add_file(vec!["crate".into()], &src().join("lib.rs"), true);
        tree.add_file(vec!["bin".into()], &src().join("main.rs"), true);
        tree
    }

    /// Parses `file` as module `path`; `dir_owner`: its children live in its own directory
    /// (lib.rs, main.rs, mod.rs) rather than in a directory named after it.
    fn add_file(&mut self, path: Vec<String>, file: &Path, dir_owner: bool) {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parent_dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let child_dir = if dir_owner {
            parent_dir.clone()
        } else {
            parent_dir.join(file.file_stem().unwrap_or_default())
        };
        let mut module = Module {
            file: file.to_path_buf(),
            ..Module::default()
        };
        let mut to_load = Vec::new();
        collect_items(&parsed.items, &mut module, &mut |name, attrs| {
            let child_file = match path_attr(attrs) {
                Some(p) => (parent_dir.join(p), false),
                None if child_dir.join(format!("{name}.rs")).exists() => {
                    (child_dir.join(format!("{name}.rs")), false)
                }
                None => (child_dir.join(name).join("mod.rs"), true),
            };
            to_load.push((name.to_string(), child_file));
        });
        for (name, _) in &to_load {
            let mut child = path.clone();
            child.push(name.clone());
            module.children.insert(name.clone(), child);
        }
        self.modules.insert(path.clone(), module);
        self.files.push((path.clone(), parsed));
        for (name, (child_file, owner)) in to_load {
            let mut child = path.clone();
            child.push(name);
            self.add_file(child, &child_file, owner);
        }
    }
}

/// Records the names `items` define and the uses they declare (test-only items left out);
/// `file_mod(name, attrs)` is called for each `mod name;` declaration.
fn collect_items(
    items: &[syn::Item],
    module: &mut Module,
    file_mod: &mut dyn FnMut(&str, &[syn::Attribute]),
) {
    for item in items {
        let (name, attrs): (Option<String>, &[syn::Attribute]) = match item {
            syn::Item::Const(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Enum(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Fn(i) => (Some(i.sig.ident.to_string()), &i.attrs),
            syn::Item::Macro(i) => (i.ident.as_ref().map(|n| n.to_string()), &i.attrs),
            syn::Item::Static(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Struct(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Trait(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Type(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Union(i) => (Some(i.ident.to_string()), &i.attrs),
            syn::Item::Use(u) => {
                if !is_test_only(&u.attrs) {
                    flatten_use(&u.tree, &mut Vec::new(), &mut module.uses);
                }
                (None, &u.attrs)
            }
            syn::Item::Mod(m) => {
                if !is_test_only(&m.attrs) {
                    match &m.content {
                        None => file_mod(&m.ident.to_string(), &m.attrs),
                        // An inline module's items count as the file's own.
                        Some((_, inner)) => collect_items(inner, module, file_mod),
                    }
                }
                (None, &m.attrs)
            }
            _ => (None, &[]),
        };
        if let Some(name) = name.filter(|_| !is_test_only(attrs)) {
            module.items.insert(name);
        }
    }
}

/// Where a path leads: a module, an item defined in a file, or outside the crate.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    Module(Vec<String>),
    Item(PathBuf),
    Outside,
}

impl Tree {
    /// Resolves `segments` as written in module `at`.
    fn resolve(&self, at: &[String], segments: &[String], depth: usize) -> Target {
        if depth > 16 || segments.is_empty() {
            return Target::Outside;
        }
        let (mut module, rest): (Vec<String>, &[String]) = match segments[0].as_str() {
            "crate" => (at[..1].to_vec(), &segments[1..]),
            "posfilter" if at[0] == "bin" => (vec!["crate".into()], &segments[1..]),
            "self" => (at.to_vec(), &segments[1..]),
            "super" => {
                let mut m = at.to_vec();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                (m, rest)
            }
            _ => match self.in_scope(at, &segments[0], depth) {
                Some(Target::Module(m)) => (m, &segments[1..]),
                Some(t) => return t,
                None => return Target::Outside,
            },
        };
        for seg in rest {
            let Some(m) = self.modules.get(&module) else {
                return Target::Outside;
            };
            if let Some(child) = m.children.get(seg) {
                module = child.clone();
                continue;
            }
            match self.in_scope(&module, seg, depth) {
                Some(Target::Module(next)) => module = next,
                Some(t) => return t,
                None => return Target::Item(m.file.clone()),
            }
        }
        Target::Module(module)
    }

    /// What `name` stands for inside module `at`: a child module, an item it defines, a
    /// name it imports (also by glob); `None` if none of these.
    fn in_scope(&self, at: &[String], name: &str, depth: usize) -> Option<Target> {
        let m = self.modules.get(at)?;
        if let Some(child) = m.children.get(name) {
            return Some(Target::Module(child.clone()));
        }
        if m.items.contains(name) {
            return Some(Target::Item(m.file.clone()));
        }
        if let Some((_, path)) = m.uses.iter().find(|(n, _)| n == name) {
            return Some(self.resolve(at, path, depth + 1));
        }
        for (_, path) in m.uses.iter().filter(|(n, _)| n == "*") {
            if let Target::Module(source) = self.resolve(at, path, depth + 1) {
                if let Some(t) = self.in_scope(&source, name, depth + 1) {
                    return Some(t);
                }
            }
        }
        None
    }
}

/// Collects every path of a file's non-test code, with its line.
#[derive(Default)]
struct Paths {
    found: Vec<(Vec<String>, usize)>,
    /// `fn` lengths: (name, first line, lines).
    fns: Vec<(String, usize, usize)>,
    /// Member accesses `.raw`.
    raw_reads: usize,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test_only(&f.attrs) {
            self.record_fn(&f.sig, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            self.record_fn(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_test_only(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if !is_test_only(&u.attrs) {
            let mut flat = Vec::new();
            flatten_use(&u.tree, &mut Vec::new(), &mut flat);
            let line = u.use_token.span.start().line;
            self.found.extend(flat.into_iter().map(|(_, p)| (p, line)));
        }
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.found.push((segments, line));
        syn::visit::visit_path(self, p);
    }
    fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
        if matches!(&e.member, syn::Member::Named(n) if n == "raw") {
            self.raw_reads += 1;
        }
        syn::visit::visit_expr_field(self, e);
    }
}

impl Paths {
    fn record_fn(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.fn_token.span.start().line;
        let last = block.brace_token.span.close().end().line;
        self.fns
            .push((sig.ident.to_string(), first, last + 1 - first));
    }
}

/// The file dependency graph: for each file, the files it depends on, each with the line
/// and path that makes it so.
struct Graph {
    edges: BTreeMap<PathBuf, BTreeMap<PathBuf, (usize, String)>>,
    /// Per file: its functions and `.raw` reads.
    paths: BTreeMap<PathBuf, Paths>,
}

fn graph(tree: &Tree) -> Graph {
    let mut g = Graph {
        edges: BTreeMap::new(),
        paths: BTreeMap::new(),
    };
    for (module, file) in &tree.files {
        let mut paths = Paths::default();
        paths.visit_file(file);
        let own = &tree.modules[module].file;
        let out = g.edges.entry(own.clone()).or_default();
        for (segments, line) in &paths.found {
            if let Target::Item(to) = tree.resolve(module, segments, 0) {
                if to != *own {
                    out.entry(to).or_insert((*line, segments.join("::")));
                }
            }
        }
        g.paths.insert(own.clone(), paths);
    }
    g
}

/// Strongly connected components of more than one file (Tarjan), each sorted.
fn circles(g: &Graph) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        g: &'a Graph,
        index: HashMap<&'a PathBuf, usize>,
        low: HashMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g.edges.get(v).into_iter().flat_map(|e| e.keys()) {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(src()).unwrap_or(p).display().to_string()
}

/// Each circle, as its files and the edges between them.
fn describe_circles(g: &Graph, found: &[Vec<PathBuf>]) -> String {
    let mut text = String::new();
    for c in found {
        let names: Vec<String> = c.iter().map(|p| rel(p)).collect();
        text.push_str(&format!("circle: {}\n", names.join(" <-> ")));
        for from in c {
            for (to, (line, path)) in &g.edges[from] {
                if c.contains(to) {
                    text.push_str(&format!(
                        "  {}:{line} -> {} (`{path}`)\n",
                        rel(from),
                        rel(to)
                    ));
                }
            }
        }
    }
    text
}

/// The layer of a library file (its top module's place in [`LAYERS`]).
fn layer(file: &Path) -> Option<usize> {
    let top = rel(file);
    let top = top.split(['/', '.']).next()?;
    LAYERS.iter().position(|l| *l == top)
}

#[test]
fn no_import_circle_between_files() {
    let tree = Tree::load();
    let g = graph(&tree);
    let found = circles(&g);
    assert!(found.is_empty(), "{}", describe_circles(&g, &found));
}

/// The checker itself finds a circle: two files of a scratch crate that use each other, and
/// one through a parent's re-export.
#[test]
fn the_circle_check_finds_circles() {
    let dir = std::env::temp_dir().join(format!("posfilter-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("lib.rs", "pub mod a;\npub mod c;\n");
    write("a/mod.rs", "mod x;\nmod y;\npub use x::X;\npub struct Z;\n");
    write("a/x.rs", "use super::y::Y;\npub struct X(Y);\n");
    write("a/y.rs", "pub struct Y;\nfn f() -> super::X { todo!() }\n");
    write("c.rs", "use crate::a::Z;\npub fn g(_: Z) {}\n");
    let mut tree = Tree {
        modules: BTreeMap::new(),
        files: Vec::new(),
    };
    tree.add_file(vec!["crate".into()], &dir.join("lib.rs"), true);
    let g = graph(&tree);
    let found = circles(&g);
    let names: Vec<Vec<String>> = found
        .iter()
        .map(|c| {
            c.iter()
                .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
                .collect()
        })
        .collect();
    // y -> X (defined in x, reached through a/mod.rs's re-export) and x -> y; c.rs uses a
    // struct defined in a/mod.rs and is in no circle.
    assert_eq!(
        names,
        vec![vec!["a/x.rs".to_string(), "a/y.rs".to_string()]]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_file_uses_a_layer_above_its_own() {
    let tree = Tree::load();
    let g = graph(&tree);
    let mut wrong = Vec::new();
    for (from, to) in &g.edges {
        let Some(lf) = layer(from) else { continue };
        for (target, (line, path)) in to {
            if layer(target).is_some_and(|lt| lt > lf) {
                wrong.push(format!(
                    "{}:{line} uses `{path}` ({})",
                    rel(from),
                    rel(target)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_file_over_500_lines() {
    let tree = Tree::load();
    let long: Vec<String> = tree
        .modules
        .values()
        .map(|m| (rel(&m.file), line_count(&m.file)))
        .filter(|(f, n)| *n > MAX_FILE_LINES && !LONG_FILES.iter().any(|(x, _)| x == f))
        .map(|(f, n)| format!("{f}: {n} lines"))
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn no_function_over_80_lines() {
    let tree = Tree::load();
    let g = graph(&tree);
    let long: Vec<String> = g
        .paths
        .iter()
        .flat_map(|(f, p)| {
            let file = rel(f);
            p.fns
                .iter()
                .filter(move |(name, _, n)| {
                    *n > MAX_FN_LINES
                        && !LONG_FNS
                            .iter()
                            .any(|(x, fname, _)| *x == file && fname == name)
                })
                .map(move |(name, line, n)| format!("{}:{line} {name}: {n} lines", rel(f)))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The rule covers the binary's files too, and [`LONG_FNS`] names only functions that exist
/// and are still long (a stale exception would hide a regression under its name).
#[test]
fn function_lengths_are_measured_everywhere_and_exceptions_are_current() {
    let tree = Tree::load();
    let g = graph(&tree);
    let measured = |file: &str, name: &str| -> Option<usize> {
        g.paths
            .iter()
            .find(|(f, _)| rel(f) == file)
            .and_then(|(_, p)| {
                p.fns
                    .iter()
                    .filter(|(n, _, _)| n == name)
                    .map(|(_, _, len)| *len)
                    .max()
            })
    };
    // A function of the binary (src/cli) and of the library outside src/pipeline are seen.
    assert!(measured("cli/mate.rs", "run_file").is_some());
    assert!(measured("mate/search.rs", "search").is_some());
    for (file, name, why) in LONG_FNS {
        let len = measured(file, name);
        assert!(
            len.is_some_and(|n| n > MAX_FN_LINES),
            "LONG_FNS names {file} {name} ({why}), which is now {len:?} lines: remove the entry"
        );
    }
}

/// The figures behind the checks, for a before / after (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn figures() {
    let tree = Tree::load();
    let g = graph(&tree);
    let found = circles(&g);
    println!("import circles: {}", found.len());
    print!("{}", describe_circles(&g, &found));
    let mut files: Vec<(usize, String)> = tree
        .modules
        .values()
        .map(|m| (line_count(&m.file), rel(&m.file)))
        .collect();
    files.sort();
    files.dedup();
    for (n, f) in files.iter().rev().take_while(|(n, _)| *n > MAX_FILE_LINES) {
        println!("file over {MAX_FILE_LINES} lines: {f} {n}");
    }
    let mut fns: Vec<(usize, String)> = g
        .paths
        .iter()
        .flat_map(|(f, p)| {
            p.fns
                .iter()
                .map(move |(name, line, n)| (*n, format!("{}:{line} {name}", rel(f))))
        })
        .collect();
    fns.sort();
    for (n, f) in fns.iter().rev().take_while(|(n, _)| *n > MAX_FN_LINES) {
        println!("function over {MAX_FN_LINES} lines: {f} {n}");
    }
    let raw_reads: usize = g
        .paths
        .iter()
        .filter(|(f, _)| !rel(f).starts_with("pipeline/config"))
        .map(|(_, p)| p.raw_reads)
        .sum();
    println!("`.raw` reads outside pipeline/config: {raw_reads}");
    for top in LAYERS {
        let (items, fields) = public_counts(&tree, top);
        println!("{top}: {items} pub items (incl. methods), {fields} pub fields");
    }
}

/// `pub` items (methods included, re-exports not) and `pub` fields in the files of `top`.
fn public_counts(tree: &Tree, top: &str) -> (usize, usize) {
    #[derive(Default)]
    struct Count {
        items: usize,
        fields: usize,
    }
    fn public(v: &syn::Visibility) -> bool {
        matches!(v, syn::Visibility::Public(_))
    }
    impl<'ast> Visit<'ast> for Count {
        fn visit_item(&mut self, i: &'ast syn::Item) {
            let vis = match i {
                syn::Item::Const(i) => Some(&i.vis),
                syn::Item::Enum(i) => Some(&i.vis),
                syn::Item::Fn(i) => Some(&i.vis),
                syn::Item::Static(i) => Some(&i.vis),
                syn::Item::Struct(i) => Some(&i.vis),
                syn::Item::Trait(i) => Some(&i.vis),
                syn::Item::Type(i) => Some(&i.vis),
                syn::Item::Mod(i) if i.content.is_none() => Some(&i.vis),
                _ => None,
            };
            self.items += vis.is_some_and(public) as usize;
            syn::visit::visit_item(self, i);
        }
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_test_only(&m.attrs) {
                syn::visit::visit_item_mod(self, m);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.items += public(&f.vis) as usize;
        }
        fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
            self.items += public(&c.vis) as usize;
        }
        fn visit_field(&mut self, f: &'ast syn::Field) {
            self.fields += public(&f.vis) as usize;
        }
    }
    let mut count = Count::default();
    for (module, file) in &tree.files {
        if module.len() >= 2 && module[0] == "crate" && module[1] == top {
            count.visit_file(file);
        }
    }
    (count.items, count.fields)
}

fn line_count(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |t| t.lines().count())
}

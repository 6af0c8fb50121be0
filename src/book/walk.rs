//! Walking a book into start positions: breadth-first from root positions along the
//! book's moves, each position visited once, at its smallest ply.
//!
//! # Semantics
//! - A node's book moves are tried in USI-string order. A move is *followed* when it is
//!   legal, the position it leads to is not decided (the caller's `decide`, asked once per
//!   distinct position, a level's new positions in one call: verdicts are cached by
//!   fingerprint), and that position repeats none
//!   of the line that reached the move's position (the root's own history included). A
//!   followed move into a position already visited counts as followed; the position is not
//!   visited again.
//! - Nodes at `max_plies` plies from their root are visited but not expanded.
//! - [`Emit`] picks what is emitted, in visit order, so the output is the same on every
//!   run: `leaves` (no followed move, or at `max_plies`), `all`, `exits` (a visited
//!   position with no book entry: one book move past the book's end), `ply:K`.
//!
//! The walk decides nothing itself: whether a position is decided (mate, mated,
//! declaration) is the caller's, who has the solver and its budget.

use super::Book;
use crate::shogi::{Fingerprint, Move, Position};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::str::FromStr;

/// Which visited positions a walk emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Emit {
    /// Positions with no followed move, or at the ply limit.
    #[default]
    Leaves,
    /// Every visited position.
    All,
    /// Visited positions the book has no entry for (one move past its end).
    Exits,
    /// Positions exactly this many plies from their root.
    Ply(u32),
}

impl FromStr for Emit {
    type Err = String;

    fn from_str(s: &str) -> Result<Emit, String> {
        match s {
            "leaves" => Ok(Emit::Leaves),
            "all" => Ok(Emit::All),
            "exits" => Ok(Emit::Exits),
            _ => s
                .strip_prefix("ply:")
                .and_then(|k| k.parse().ok())
                .map(Emit::Ply)
                .ok_or_else(|| format!("--emit {s:?}: expected leaves, all, exits or ply:K")),
        }
    }
}

impl fmt::Display for Emit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Emit::Leaves => write!(f, "leaves"),
            Emit::All => write!(f, "all"),
            Emit::Exits => write!(f, "exits"),
            Emit::Ply(k) => write!(f, "ply:{k}"),
        }
    }
}

/// A root of the walk: its position and the line that reached it (for repetition).
#[derive(Clone, Debug)]
pub struct Root {
    /// The root position (its history, if any, is the line before it).
    pub position: Position,
    /// Fingerprints of the positions before it on its line, oldest first.
    pub history: Vec<Fingerprint>,
    /// The root as a USI position line (`startpos`, `startpos moves …`, `sfen …`).
    pub line: String,
}

impl Root {
    /// The USI line of the position `moves` past this root (moves appended to its line).
    pub fn usi_line(&self, moves: &[Move]) -> String {
        let mut s = self.line.clone();
        if moves.is_empty() {
            return s;
        }
        if !s.split_whitespace().any(|w| w == "moves") {
            s.push_str(" moves");
        }
        for m in moves {
            s.push(' ');
            s.push_str(&m.to_usi());
        }
        s
    }
}

/// One visited position.
#[derive(Clone, Debug)]
pub struct Node {
    /// The position (no history).
    pub position: Position,
    /// The root it was reached from (index into the roots).
    pub root: usize,
    /// The moves from the root, in order.
    pub moves: Vec<Move>,
    /// Whether any of its book moves was followed.
    pub followed: bool,
    /// Whether the book has an entry for it.
    pub in_book: bool,
}

impl Node {
    /// A node not yet known to be in the book, with no followed move.
    fn new(mut position: Position, root: usize, moves: Vec<Move>) -> Node {
        position.clear_history();
        Node {
            position,
            root,
            moves,
            followed: false,
            in_book: false,
        }
    }
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Every visited position, in visit order.
    pub nodes: Vec<Node>,
    /// Indices into `nodes` of the emitted positions, in visit order.
    pub emitted: Vec<usize>,
    /// Moves followed (into a new or an already visited position).
    pub followed: u64,
    /// Moves not legal in their position.
    pub illegal: u64,
    /// Moves into a decided position, by the decision's reason.
    pub decided: BTreeMap<String, u64>,
    /// Moves into a position already on their line (cycles cut).
    pub cycles_cut: u64,
    /// Distinct positions `decide` was asked about.
    pub decisions: u64,
}

/// Walks `book` (entries merged: one per position) from `roots` up to `max_plies` plies;
/// `decide` gets the new positions of one breadth-first level at once and returns, for
/// each, the reason it is decided or `None`. See the module doc.
pub fn walk(
    book: &Book,
    roots: &[Root],
    max_plies: u32,
    emit: Emit,
    decide: &mut dyn FnMut(&[Position]) -> Vec<Option<String>>,
) -> Walked {
    let entries: HashMap<Fingerprint, usize> = book
        .positions
        .iter()
        .enumerate()
        .map(|(i, p)| (p.position.fingerprint(), i))
        .collect();
    let mut out = Walked::default();
    let mut visited: HashMap<Fingerprint, usize> = HashMap::new();
    let mut verdicts: HashMap<Fingerprint, Option<String>> = HashMap::new();
    let mut queue = VecDeque::new();
    for (r, root) in roots.iter().enumerate() {
        let node = Node::new(root.position.clone(), r, Vec::new());
        visit(&mut out, &mut visited, &mut queue, &entries, node);
    }
    let mut prepared = None;
    while let Some(n) = queue.pop_front() {
        let depth = out.nodes[n].moves.len() as u32;
        if depth >= max_plies {
            continue;
        }
        if prepared != Some(depth) {
            // The queue now holds exactly this depth's nodes: decide their children at once.
            let level = Level {
                book,
                entries: &entries,
                nodes: &out.nodes,
            };
            let pending =
                level.undecided(std::iter::once(n).chain(queue.iter().copied()), &verdicts);
            out.decisions += pending.len() as u64;
            decide_all(pending, &mut verdicts, decide);
            prepared = Some(depth);
        }
        let Some(moves) = book_moves(book, &entries, &out.nodes[n].position) else {
            continue;
        };
        for mv in moves {
            let node = &out.nodes[n];
            if !node.position.is_legal(mv) {
                out.illegal += 1;
                continue;
            }
            let mut child = node.position.clone();
            child.do_move(mv);
            child.clear_history();
            let fp = child.fingerprint();
            if let Some(Some(reason)) = verdicts.get(&fp) {
                *out.decided.entry(reason.clone()).or_default() += 1;
                continue;
            }
            if on_line(&out.nodes, &roots[node.root], n, fp) {
                out.cycles_cut += 1;
                continue;
            }
            out.followed += 1;
            out.nodes[n].followed = true;
            let mut line = out.nodes[n].moves.clone();
            line.push(mv);
            let node = Node::new(child, out.nodes[n].root, line);
            visit(&mut out, &mut visited, &mut queue, &entries, node);
        }
    }
    out.emitted = (0..out.nodes.len())
        .filter(|&i| emitted(&out.nodes[i], emit, max_plies))
        .collect();
    out
}

/// Decides the `pending` positions in one call and records their verdicts (a position
/// left unanswered, when the decider was stopped, counts as not decided).
fn decide_all(
    pending: Vec<(Fingerprint, Position)>,
    verdicts: &mut HashMap<Fingerprint, Option<String>>,
    decide: &mut dyn FnMut(&[Position]) -> Vec<Option<String>>,
) {
    let positions: Vec<Position> = pending.iter().map(|(_, p)| p.clone()).collect();
    let mut answers = decide(&positions).into_iter();
    for (fp, _) in pending {
        verdicts.insert(fp, answers.next().flatten());
    }
}

/// The book moves of `pos` in USI-string order, if the book has an entry for it.
fn book_moves(
    book: &Book,
    entries: &HashMap<Fingerprint, usize>,
    pos: &Position,
) -> Option<Vec<Move>> {
    let e = *entries.get(&pos.fingerprint())?;
    let mut moves: Vec<Move> = book.positions[e].moves.iter().map(|m| m.mv).collect();
    moves.sort_by_cached_key(|m| m.to_usi());
    Some(moves)
}

/// One breadth-first level's view of the walk, to gather the positions to decide.
struct Level<'a> {
    book: &'a Book,
    entries: &'a HashMap<Fingerprint, usize>,
    nodes: &'a [Node],
}

impl Level<'_> {
    /// The distinct positions that the legal book moves of `level`'s nodes lead to and
    /// that have no verdict yet, in the order the walk meets them.
    fn undecided(
        &self,
        level: impl Iterator<Item = usize>,
        verdicts: &HashMap<Fingerprint, Option<String>>,
    ) -> Vec<(Fingerprint, Position)> {
        let mut pending: Vec<(Fingerprint, Position)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for n in level {
            let pos = &self.nodes[n].position;
            for mv in book_moves(self.book, self.entries, pos).unwrap_or_default() {
                if !pos.is_legal(mv) {
                    continue;
                }
                let mut child = pos.clone();
                child.do_move(mv);
                child.clear_history();
                let fp = child.fingerprint();
                if !verdicts.contains_key(&fp) && seen.insert(fp) {
                    pending.push((fp, child));
                }
            }
        }
        pending
    }
}

/// Adds `node` to the walk and the queue unless its position was visited already.
fn visit(
    out: &mut Walked,
    visited: &mut HashMap<Fingerprint, usize>,
    queue: &mut VecDeque<usize>,
    entries: &HashMap<Fingerprint, usize>,
    mut node: Node,
) {
    let fp = node.position.fingerprint();
    if visited.contains_key(&fp) {
        return;
    }
    node.in_book = entries.contains_key(&fp);
    visited.insert(fp, out.nodes.len());
    queue.push_back(out.nodes.len());
    out.nodes.push(node);
}

/// Whether `fp` is the position of node `n`, one on its line from the root, or one of
/// the root's own history.
fn on_line(nodes: &[Node], root: &Root, n: usize, fp: Fingerprint) -> bool {
    if root.history.contains(&fp) {
        return true;
    }
    let node = &nodes[n];
    let mut pos = root.position.clone();
    pos.clear_history();
    if pos.fingerprint() == fp {
        return true;
    }
    node.moves.iter().any(|&m| {
        pos.do_move(m);
        pos.fingerprint() == fp
    })
}

fn emitted(node: &Node, emit: Emit, max_plies: u32) -> bool {
    let ply = node.moves.len() as u32;
    match emit {
        Emit::Leaves => !node.followed || ply >= max_plies,
        Emit::All => true,
        Emit::Exits => !node.in_book && ply > 0,
        Emit::Ply(k) => ply == k,
    }
}

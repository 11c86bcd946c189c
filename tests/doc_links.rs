//! Every relative link of README.md, ROADMAP.md, examples/README.md and the files under
//! docs/ names a file or directory of the repository (anchors are not checked).

use std::path::{Path, PathBuf};

/// The Markdown files whose links are checked.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "ROADMAP.md", "examples/README.md"].iter().map(|f| root.join(f)).collect();
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// The targets of the inline links `[text](target)` in `text`, outside code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn relative_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    let files = markdown_files(root);
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for target in link_targets(&text) {
            let path = target.split('#').next().unwrap_or("").trim();
            if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                continue;
            }
            let resolved = file.parent().expect("a file has a directory").join(path);
            if !resolved.exists() {
                broken.push(format!("{}: {target}", file.strip_prefix(root).unwrap_or(&file).display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_reader_finds_links_outside_code() {
    let text = "see [a](docs/a.md) and [b](../b.md#x)\n```\n[c](c.md)\n```\n[d](https://e.org)";
    assert_eq!(link_targets(text), vec!["docs/a.md", "../b.md#x", "https://e.org"]);
}

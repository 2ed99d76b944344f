//! The file tools inside an editor: they read and write its buffers, not the disk.

use serde_json::json;

use super::{ReadFile, UpdateFile, WriteFile};
use crate::editor::fake::Buffers;
use crate::testutil::{args, ctx};
use crate::tool::{Tool, ToolContext};

fn in_editor(dir: &std::path::Path, buffers: std::sync::Arc<Buffers>) -> ToolContext {
    let mut ctx = ctx(dir);
    ctx.workspace = ctx.workspace.with_editor(buffers);
    ctx
}

#[tokio::test]
async fn file_tools_see_and_edit_the_editors_unsaved_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().canonicalize().unwrap().join("a.txt");
    std::fs::write(&file, "saved on disk\n").unwrap();
    let buffers = Buffers::with(&file, "unsaved line\n");
    let ctx = in_editor(dir.path(), buffers.clone());

    let read = ReadFile
        .call(args(json!({"file_path": "a.txt"})), &ctx)
        .await
        .unwrap();
    assert!(read.content.contains("unsaved line"), "{}", read.content);

    let target = json!({"file_path": "a.txt", "target": "unsaved", "replacement": "edited"});
    let preview = UpdateFile
        .preview(&args(target.clone()), &ctx)
        .await
        .unwrap();
    assert!(preview.unwrap().contains("+edited line"));
    UpdateFile.call(args(target), &ctx).await.unwrap();
    assert_eq!(buffers.get(&file).as_deref(), Some("edited line\n"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "saved on disk\n");
}

#[tokio::test]
async fn a_new_file_is_written_through_the_editor_and_missing_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let buffers = std::sync::Arc::new(Buffers::default());
    let ctx = in_editor(dir.path(), buffers.clone());

    WriteFile
        .call(
            args(json!({"file_path": "new.txt", "content": "hi\n"})),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(buffers.get(&root.join("new.txt")).as_deref(), Some("hi\n"));
    assert!(
        !root.join("new.txt").exists(),
        "the editor saves it, not us"
    );

    let missing = ReadFile
        .call(args(json!({"file_path": "nope.txt"})), &ctx)
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("does not exist"), "{missing}");
}

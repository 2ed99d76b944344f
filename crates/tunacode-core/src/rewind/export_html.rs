//! The HTML export: the Markdown transcript rendered as one self-contained page. Raw HTML in the
//! transcript (a file the agent read, a model's answer) is shown as text, never rendered, so an
//! exported page runs nothing a repository or a model wrote.

use pulldown_cmark::{Event, Options, Parser, html};

/// `markdown` as a page titled `title`.
pub(crate) fn html(markdown: &str, title: &str) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut body = String::new();
    html::push_html(&mut body, parser);
    let mut escaped_title = String::new();
    html::push_html(
        &mut escaped_title,
        std::iter::once(Event::Text(title.into())),
    );
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{escaped_title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )
}

const STYLE: &str = "body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; \
padding: 0 1rem; line-height: 1.5; }\npre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; }\n\
blockquote { border-left: 4px solid #4a90d9; margin: 0; padding-left: 1rem; color: #222; }\n";

#[cfg(test)]
mod tests {
    #[test]
    fn raw_html_in_the_transcript_is_shown_never_run() {
        let page = super::html(
            "# t\n\n<script>alert(1)</script>\n\nsee <img src=x onerror=alert(2)> here\n",
            "a <b>title</b>",
        );
        assert!(!page.contains("<script>"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(page.contains("&lt;script&gt;"), "{page}");
        assert!(
            page.contains("<title>a &lt;b&gt;title&lt;/b&gt;</title>"),
            "{page}"
        );
    }
}

//! Keeping the end of a growing text (a running command's output as front ends show it).

/// Drops the start of `text` so that at most `max_bytes` remain, cutting at a character boundary.
pub fn keep_tail(text: &mut String, max_bytes: usize) {
    if text.len() <= max_bytes {
        return;
    }
    let mut cut = text.len() - max_bytes;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text.drain(..cut);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_end_on_a_character_boundary() {
        let mut text = "aé-xyz".to_string();
        keep_tail(&mut text, 5);
        assert_eq!(text, "-xyz", "the cut moves past the split é");
        keep_tail(&mut text, 10);
        assert_eq!(text, "-xyz");
    }
}

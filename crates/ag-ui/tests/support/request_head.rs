//! Reading an HTTP/1.1 request head from the bytes received so far: the one parse of the
//! scripted servers, async (`scripted.rs`) and on threads (the command's tests, which include
//! this file). No dependency beyond `std`.

/// A request head complete in `received`: where the body starts, the head (request line and
/// headers) as text, and the `Content-Length` (0 without one); `None` until the blank line
/// that ends the head has arrived.
pub fn parse_head(received: &[u8]) -> Option<(usize, String, usize)> {
    let head_end = received.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    Some((head_end, head, length))
}

//! The egress proxy against a loopback upstream.

use std::sync::{Arc, Mutex};

use super::*;

/// An upstream that answers `hello` to every request and keeps the heads it saw.
async fn upstream() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let heads = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let heads = heads.clone();
            tokio::spawn(async move {
                if let Ok((head, _)) = read_head(&mut conn).await {
                    heads.lock().expect("lock").push(head);
                    let _ = conn
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
                        .await;
                }
            });
        }
    });
    (port, seen)
}

async fn exchange(proxy: u16, request: &str) -> String {
    let mut conn = TcpStream::connect(("127.0.0.1", proxy))
        .await
        .expect("connect");
    conn.write_all(request.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        conn.read_to_end(&mut out),
    )
    .await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn allowed_hosts_pass_over_http_and_connect_and_others_are_refused() {
    let (up, seen) = upstream().await;
    let proxy = EgressProxy::start(&["127.0.0.1".into()])
        .await
        .expect("proxy");
    let plain = exchange(
        proxy.port(),
        &format!("GET http://127.0.0.1:{up}/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: keep-alive\r\n\r\n"),
    )
    .await;
    assert!(plain.ends_with("hello"), "{plain}");
    let head = seen.lock().expect("lock")[0].clone();
    assert!(head.starts_with("GET /x?y=1 HTTP/1.1\r\n"), "{head}");
    assert!(
        head.contains("Connection: close") && !head.contains("Proxy-Connection"),
        "{head}"
    );

    let tunnel = exchange(
        proxy.port(),
        &format!("CONNECT 127.0.0.1:{up} HTTP/1.1\r\n\r\nGET /t HTTP/1.1\r\nHost: x\r\n\r\n"),
    )
    .await;
    assert!(
        tunnel.starts_with("HTTP/1.1 200 Connection established") && tunnel.ends_with("hello"),
        "{tunnel}"
    );

    let strict = EgressProxy::start(&["*.crates.io".into()])
        .await
        .expect("proxy");
    let refused = exchange(
        strict.port(),
        &format!("CONNECT 127.0.0.1:{up} HTTP/1.1\r\n\r\n"),
    )
    .await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(refused.contains("allowed_hosts"), "{refused}");
    assert_eq!(
        seen.lock().expect("lock").len(),
        2,
        "the refused request never reached the upstream"
    );
}

#[test]
fn destinations_and_patterns() {
    assert_eq!(
        destination("CONNECT", "index.crates.io:443"),
        Some(("index.crates.io".into(), 443, String::new()))
    );
    assert_eq!(
        destination("CONNECT", "[::1]:8080"),
        Some(("::1".into(), 8080, String::new()))
    );
    assert_eq!(
        destination("GET", "http://example.com/a/b"),
        Some(("example.com".into(), 80, "/a/b".into()))
    );
    assert_eq!(
        destination("GET", "http://example.com:8080"),
        Some(("example.com".into(), 8080, "/".into()))
    );
    assert_eq!(destination("GET", "/relative"), None);
    let allowed =
        Allowed::new(&["*.crates.io".into(), "registry.npmjs.org".into()]).expect("patterns");
    assert!(allowed.permits("static.crates.io") && allowed.permits("Registry.NPMjs.org"));
    assert!(!allowed.permits("crates.io.evil.com") && !allowed.permits("example.com"));
}

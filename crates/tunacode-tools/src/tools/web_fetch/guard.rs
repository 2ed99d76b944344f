//! Where `web_fetch` may connect: the addresses a name resolves to are filtered here, inside the HTTP
//! client's own resolver, so the address checked is the address connected to (a name that resolves to
//! a public address for the check and a private one for the connection cannot slip through).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Why an address may not be fetched from, if it may not.
pub(crate) fn refused(ip: IpAddr, allow_private: bool) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    if is_metadata(ip) {
        // Never useful to a coding agent, and the classic target of request forgery.
        return Some("a cloud metadata address");
    }
    if allow_private {
        return None;
    }
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn is_metadata(ip: IpAddr) -> bool {
    ip == IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254))
        || ip == IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254))
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Some("a private address")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() || a == 0 {
        Some("not a host address")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Some("a loopback address")
    } else if first & 0xfe00 == 0xfc00 {
        Some("a private address")
    } else if first & 0xffc0 == 0xfe80 {
        Some("a link-local address")
    } else if ip.is_unspecified() || ip.is_multicast() {
        Some("not a host address")
    } else {
        None
    }
}

/// The client's resolver: the system's, keeping only the addresses that may be connected to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardedResolver {
    pub(crate) allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })?
                .collect();
            let mut why = "no address";
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|addr| match refused(addr.ip(), allow_private) {
                    Some(reason) => {
                        why = reason;
                        false
                    }
                    None => true,
                })
                .collect();
            if allowed.is_empty() {
                let message = format!("{host} resolves to {why}, which web_fetch does not reach");
                return Err(message.into());
            }
            let addrs: Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn private_addresses_are_refused_unless_allowed_and_metadata_always() {
        for (addr, why) in [
            ("127.0.0.1", "loopback"),
            ("10.1.2.3", "private"),
            ("172.20.0.1", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "private"),
            ("169.254.1.1", "link-local"),
            ("::1", "loopback"),
            ("fd12::1", "private"),
            ("fe80::1", "link-local"),
            ("::ffff:127.0.0.1", "loopback"),
            ("0.0.0.0", "not a host"),
        ] {
            assert!(
                refused(ip(addr), false).is_some_and(|r| r.contains(why)),
                "{addr}"
            );
            assert_eq!(
                refused(ip(addr), true),
                None,
                "{addr} allowed by the config"
            );
        }
        for public in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert_eq!(refused(ip(public), false), None, "{public}");
        }
        assert!(refused(ip("169.254.169.254"), true).is_some_and(|r| r.contains("metadata")));
    }
}

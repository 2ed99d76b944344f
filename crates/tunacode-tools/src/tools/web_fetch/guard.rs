//! Where `web_fetch` may connect: the addresses a name resolves to are filtered here, inside the HTTP
//! client's own resolver, so the address checked is the address connected to (a name that resolves to
//! a public address for the check and a private one for the connection cannot slip through).
//!
//! Refused: every special-purpose range of RFC 6890 and its updates (`ranges.rs`), including the IPv4
//! address inside IPv4-mapped, NAT64 and 6to4 addresses, and every address of this machine's own
//! interfaces (a public address of the host reaches its own services). `allow_private_hosts` lifts
//! all of that; cloud metadata addresses are refused whatever the settings.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::ranges::{embedded_v4, v4_kind, v6_kind};

/// The addresses of this machine's interfaces (every family), read now. Blocking (a netlink
/// round trip): call it off the async threads. An error gives only the loopback addresses, which the
/// ranges refuse anyway.
pub(crate) fn local_addrs() -> HashSet<IpAddr> {
    let mut found: HashSet<IpAddr> = [
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(Ipv6Addr::LOCALHOST),
    ]
    .into();
    let Ok(interfaces) = nix::ifaddrs::getifaddrs() else {
        return found;
    };
    for interface in interfaces {
        let Some(address) = interface.address else {
            continue;
        };
        if let Some(v4) = address.as_sockaddr_in() {
            found.insert(IpAddr::V4(v4.ip()));
        } else if let Some(v6) = address.as_sockaddr_in6() {
            found.insert(IpAddr::V6(v6.ip()));
        }
    }
    found
}

/// Why an address may not be fetched from, if it may not; `local` is this machine's addresses.
pub(crate) fn refused(
    ip: IpAddr,
    allow_private: bool,
    local: &HashSet<IpAddr>,
) -> Option<&'static str> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let inner = match ip {
        IpAddr::V6(v6) => embedded_v4(v6),
        IpAddr::V4(_) => None,
    };
    if is_metadata(ip) || inner.is_some_and(|v4| is_metadata(IpAddr::V4(v4))) {
        // Never useful to a coding agent, and the classic target of request forgery.
        return Some("a cloud metadata address");
    }
    if allow_private {
        return None;
    }
    let reserved = match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6).or_else(|| {
            inner
                .and_then(v4_kind)
                .map(|_| "an IPv6 address carrying a reserved IPv4 address")
        }),
    };
    let own = local.contains(&ip) || inner.is_some_and(|v4| local.contains(&IpAddr::V4(v4)));
    reserved.or(own.then_some("an address of this machine"))
}

fn is_metadata(ip: IpAddr) -> bool {
    ip == IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254))
        || ip == IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254))
}

/// The client's resolver: the system's, keeping only the addresses that may be connected to.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    pub(crate) allow_private: bool,
    /// This machine's addresses, read when the fetch started.
    pub(crate) local: Arc<HashSet<IpAddr>>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (allow_private, local) = (self.allow_private, self.local.clone());
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })?
                .collect();
            let mut why = "no address";
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|addr| match refused(addr.ip(), allow_private, &local) {
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
#[path = "guard_tests.rs"]
mod tests;

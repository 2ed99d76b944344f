//! The special-purpose address ranges `web_fetch` refuses: the IANA registries of RFC 6890 and its
//! updates (RFC 7526, 8190, 8215, 9637, …), by prefix, each with what it is. Addresses that embed an
//! IPv4 address (NAT64, 6to4) are judged by that address too.

use std::net::{Ipv4Addr, Ipv6Addr};

/// IPv4 special-purpose blocks: network, prefix length, what it is.
const V4: &[([u8; 4], u8, &str)] = &[
    ([0, 0, 0, 0], 8, "not a host address (\"this network\")"),
    ([10, 0, 0, 0], 8, "a private address"),
    ([100, 64, 0, 0], 10, "a private address (carrier-grade NAT)"),
    ([127, 0, 0, 0], 8, "a loopback address"),
    ([169, 254, 0, 0], 16, "a link-local address"),
    ([172, 16, 0, 0], 12, "a private address"),
    (
        [192, 0, 0, 0],
        24,
        "a reserved address (IETF protocol assignments)",
    ),
    ([192, 0, 2, 0], 24, "a documentation address"),
    (
        [192, 88, 99, 0],
        24,
        "a reserved address (6to4 relay anycast)",
    ),
    ([192, 168, 0, 0], 16, "a private address"),
    ([198, 18, 0, 0], 15, "a reserved address (benchmarking)"),
    ([198, 51, 100, 0], 24, "a documentation address"),
    ([203, 0, 113, 0], 24, "a documentation address"),
    ([224, 0, 0, 0], 4, "not a host address (multicast)"),
    ([255, 255, 255, 255], 32, "not a host address (broadcast)"),
    ([240, 0, 0, 0], 4, "a reserved address (future use)"),
];

/// IPv6 special-purpose blocks (IPv4-mapped addresses are judged as IPv4 before these).
const V6: &[(u128, u8, &str)] = &[
    (0, 128, "not a host address (unspecified)"),
    (1, 128, "a loopback address"),
    (0, 96, "a reserved address (IPv4-compatible, deprecated)"),
    (
        0x0064_ff9b_0001 << 80,
        48,
        "a reserved address (local-use NAT64)",
    ),
    (0x0100 << 112, 64, "a discard-only address"),
    (0x2001_0db8 << 96, 32, "a documentation address"),
    (
        0x2001 << 112,
        23,
        "a reserved address (IETF protocol assignments)",
    ),
    (0x3fff << 112, 20, "a documentation address"),
    (0xfc00 << 112, 7, "a private address (unique local)"),
    (0xfe80 << 112, 10, "a link-local address"),
    (
        0xfec0 << 112,
        10,
        "a private address (site-local, deprecated)",
    ),
    (0xff00 << 112, 8, "not a host address (multicast)"),
];

/// What a special-purpose IPv4 address is, if it is one.
pub(crate) fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let bits = u32::from(ip);
    V4.iter()
        .find(|(net, len, _)| in_prefix(bits.into(), u32::from_be_bytes(*net).into(), *len, 32))
        .map(|(_, _, what)| *what)
}

/// What a special-purpose IPv6 address is, if it is one (judged by its own prefix only).
pub(crate) fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let bits = u128::from(ip);
    V6.iter()
        .find(|(net, len, _)| in_prefix(bits, *net, *len, 128))
        .map(|(_, _, what)| *what)
}

/// The IPv4 address inside a NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) address.
pub(crate) fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(ip);
    if in_prefix(bits, 0x0064_ff9b << 96, 96, 128) {
        return Some(Ipv4Addr::from(bits as u32));
    }
    if in_prefix(bits, 0x2002 << 112, 16, 128) {
        return Some(Ipv4Addr::from((bits >> 80) as u32));
    }
    None
}

/// Whether the top `len` of `width` bits of `bits` are those of `net`.
fn in_prefix(bits: u128, net: u128, len: u8, width: u32) -> bool {
    if len == 0 {
        return true;
    }
    let shift = width - u32::from(len);
    (bits >> shift) == (net >> shift)
}

use super::*;

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an address")
}

fn none() -> HashSet<IpAddr> {
    HashSet::new()
}

/// Refused (with `why` in the reason) unless private hosts are allowed.
fn assert_reserved(cases: &[(&str, &str)]) {
    for (addr, why) in cases {
        let reason = refused(ip(addr), false, &none());
        assert!(
            reason.is_some_and(|r| r.contains(why)),
            "{addr}: {reason:?}, wanted {why}"
        );
        assert_eq!(
            refused(ip(addr), true, &none()),
            None,
            "{addr} allowed by the config"
        );
    }
}

#[test]
fn every_special_purpose_ipv4_range_is_refused_at_both_ends() {
    assert_reserved(&[
        ("0.0.0.0", "not a host"),
        ("0.255.255.255", "not a host"),
        ("10.0.0.0", "private"),
        ("10.255.255.255", "private"),
        ("100.64.0.0", "carrier-grade NAT"),
        ("100.127.255.255", "carrier-grade NAT"),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("169.254.0.1", "link-local"),
        ("169.254.255.255", "link-local"),
        ("172.16.0.0", "private"),
        ("172.31.255.255", "private"),
        ("192.0.0.0", "IETF protocol"),
        ("192.0.0.255", "IETF protocol"),
        ("192.0.2.1", "documentation"),
        ("192.88.99.1", "6to4 relay"),
        ("192.168.0.0", "private"),
        ("192.168.255.255", "private"),
        ("198.18.0.0", "benchmarking"),
        ("198.19.255.255", "benchmarking"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.9", "documentation"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.255", "multicast"),
        ("240.0.0.1", "future use"),
        ("254.255.255.255", "future use"),
        ("255.255.255.255", "broadcast"),
    ]);
    // Just outside the ranges.
    for public in [
        "1.1.1.1",
        "9.255.255.255",
        "11.0.0.0",
        "100.63.255.255",
        "100.128.0.0",
        "126.255.255.255",
        "128.0.0.0",
        "169.253.255.255",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.1.0",
        "192.0.3.0",
        "192.88.98.255",
        "192.169.0.0",
        "198.17.255.255",
        "198.20.0.0",
        "203.0.112.255",
        "223.255.255.255",
        "8.8.8.8",
        "93.184.216.34",
    ] {
        assert_eq!(refused(ip(public), false, &none()), None, "{public}");
    }
}

#[test]
fn every_special_purpose_ipv6_range_is_refused() {
    assert_reserved(&[
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("::7f00:1", "IPv4-compatible"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.1.2.3", "private"),
        ("::ffff:0.0.0.0", "not a host"),
        ("64:ff9b:1::1", "local-use NAT64"),
        ("100::1", "discard-only"),
        ("100::ffff:ffff:ffff:ffff", "discard-only"),
        ("2001::1", "IETF protocol"),
        ("2001:1ff:ffff::1", "IETF protocol"),
        ("2001:db8::1", "documentation"),
        ("2001:db8:ffff::1", "documentation"),
        ("3fff::1", "documentation"),
        ("fc00::1", "unique local"),
        ("fdff:ffff::1", "unique local"),
        ("fe80::1", "link-local"),
        ("febf:ffff::1", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("ffff::1", "multicast"),
    ]);
    for public in [
        "2606:4700::1111",
        "2001:200::1",
        "2001:4860:4860::8888",
        "2003::1",
        "101::1",
        "fbff::1",
    ] {
        assert_eq!(refused(ip(public), false, &none()), None, "{public}");
    }
}

#[test]
fn nat64_and_6to4_addresses_are_judged_by_the_ipv4_address_inside() {
    assert_reserved(&[
        ("64:ff9b::127.0.0.1", "reserved IPv4"),
        ("64:ff9b::10.0.0.1", "reserved IPv4"),
        ("64:ff9b::c0a8:101", "reserved IPv4"),
        ("2002:7f00:1::1", "reserved IPv4"),
        ("2002:a00:1::", "reserved IPv4"),
        ("2002:c0a8:101:1::1", "reserved IPv4"),
    ]);
    // A public IPv4 address behind NAT64 or 6to4 is public.
    for public in ["64:ff9b::8.8.8.8", "2002:808:808::1"] {
        assert_eq!(refused(ip(public), false, &none()), None, "{public}");
    }
}

#[test]
fn metadata_addresses_are_refused_even_when_private_hosts_are_allowed() {
    for metadata in [
        "169.254.169.254",
        "::ffff:169.254.169.254",
        "64:ff9b::169.254.169.254",
        "2002:a9fe:a9fe::1",
        "fd00:ec2::254",
    ] {
        for allow in [false, true] {
            assert!(
                refused(ip(metadata), allow, &none()).is_some_and(|r| r.contains("metadata")),
                "{metadata} allow={allow}"
            );
        }
    }
}

#[test]
fn this_machines_own_addresses_are_refused_unless_private_hosts_are_allowed() {
    // A public address the host owns reaches its own services.
    let local: HashSet<IpAddr> = [ip("93.184.216.34"), ip("2606:4700::1111")].into();
    for own in [
        "93.184.216.34",
        "::ffff:93.184.216.34",
        "64:ff9b::93.184.216.34",
        "2606:4700::1111",
    ] {
        assert!(
            refused(ip(own), false, &local).is_some_and(|r| r.contains("this machine")),
            "{own}"
        );
        assert_eq!(refused(ip(own), true, &local), None, "{own} allowed");
    }
    assert_eq!(refused(ip("8.8.8.8"), false, &local), None);
}

#[test]
fn the_interfaces_are_enumerated_and_every_one_of_their_addresses_is_refused() {
    let found = local_addrs();
    assert!(found.contains(&ip("127.0.0.1")), "{found:?}");
    // What the kernel reports for this machine, every family.
    let mut kernel = HashSet::new();
    for interface in nix::ifaddrs::getifaddrs().expect("getifaddrs") {
        if let Some(a) = interface.address {
            if let Some(v4) = a.as_sockaddr_in() {
                kernel.insert(IpAddr::V4(v4.ip()));
            }
            if let Some(v6) = a.as_sockaddr_in6() {
                kernel.insert(IpAddr::V6(v6.ip()));
            }
        }
    }
    assert!(kernel.is_subset(&found), "{kernel:?} ⊄ {found:?}");
    for own in &found {
        assert!(refused(*own, false, &found).is_some(), "{own}");
    }
}

#[tokio::test]
async fn a_name_that_resolves_only_to_refused_addresses_is_not_connected_to() {
    let resolver = GuardedResolver {
        allow_private: false,
        local: Arc::new(local_addrs()),
    };
    let name: Name = "localhost".parse().expect("a name");
    let refused = match resolver.resolve(name).await {
        Ok(addrs) => panic!("resolved to {:?}", addrs.collect::<Vec<_>>()),
        Err(e) => e.to_string(),
    };
    assert!(refused.contains("localhost resolves to"), "{refused}");
    let allowing = GuardedResolver {
        allow_private: true,
        local: Arc::default(),
    };
    let name: Name = "localhost".parse().expect("a name");
    let addrs: Vec<SocketAddr> = allowing.resolve(name).await.expect("allowed").collect();
    assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
}

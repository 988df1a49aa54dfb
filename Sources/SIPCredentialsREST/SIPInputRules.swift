/// What the SIP credential APIs accept, checked before anything reaches the store. Each rule
/// returns the reason a value is refused, or nil.
package enum SIPInputRules {
    /// A Plivo endpoint username before its suffix: 1–32 letters and digits (the suffix makes it
    /// at most 44 characters, a safe SIP user part).
    package static func endpointUsername(_ name: String) -> String? {
        guard (1...32).contains(name.utf8.count), name.utf8.allSatisfy(isAlphanumeric) else {
            return "username must be 1 to 32 letters or digits"
        }
        return nil
    }

    /// A Plivo endpoint password: 8–128 printable characters.
    package static func endpointPassword(_ password: String) -> String? {
        guard (8...128).contains(password.count), isPrintable(password) else {
            return "password must be 8 to 128 printable characters"
        }
        return nil
    }

    /// A Plivo alias or a friendly name: 1–`limit` printable characters.
    package static func name(_ text: String, field: String, limit: Int) -> String? {
        guard (1...limit).contains(text.count), isPrintable(text) else {
            return "\(field) must be 1 to \(limit) printable characters"
        }
        return nil
    }

    /// A Twilio credential username: 1–32 characters a SIP user part carries unescaped
    /// (RFC 3261 §25.1 `unreserved`, without the ones that need quoting in a digest header).
    package static func credentialUsername(_ name: String) -> String? {
        let allowed = Set("-_.!~*'()&=+$,;?/".utf8)
        guard (1...32).contains(name.utf8.count), name.utf8.allSatisfy({ isAlphanumeric($0) || allowed.contains($0) }) else {
            return "Username must be 1 to 32 letters, digits or -_.!~*'()&=+$,;?/"
        }
        return nil
    }

    /// A Twilio credential password, as the vendor's: at least 12 characters with a digit, an
    /// uppercase and a lowercase letter (and at most 128, printable).
    package static func credentialPassword(_ password: String) -> String? {
        let bytes = Array(password.utf8)
        guard (12...128).contains(password.count), isPrintable(password), bytes.contains(where: { $0 >= 0x30 && $0 <= 0x39 }),
              bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5a }), bytes.contains(where: { $0 >= 0x61 && $0 <= 0x7a }) else {
            return "Password must be at least 12 characters long and contain a digit, an uppercase and a lowercase letter"
        }
        return nil
    }

    /// A SIP domain name (RFC 1035 §2.3.1, lowercased by the caller): two or more labels of
    /// letters, digits and inner hyphens, each at most 63 characters, 253 in all.
    package static func domainName(_ name: String) -> String? {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = name.utf8.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.first != 0x2d && label.utf8.last != 0x2d
                && label.utf8.allSatisfy { isAlphanumeric($0) || $0 == 0x2d }
        }
        return valid ? nil : "DomainName must be a host name such as example.sip.parley.local"
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)
    }

    private static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{7f}" }
    }
}

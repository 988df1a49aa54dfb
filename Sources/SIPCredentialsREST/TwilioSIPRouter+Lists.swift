import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// `CredentialLists` with their `Credentials`, `IpAccessControlLists` with their `IpAddresses`.
extension TwilioSIPRouter {
    /// The code a list kind's validation errors carry.
    private static func code(_ kind: SIPListKind) -> ParleyError.Code {
        kind == .credentials ? .credentialListValidation : .invalidParameter
    }

    /// `FriendlyName`: up to 64 characters for credential lists, 255 for IP access control lists.
    private static func friendlyName(_ c: Context, _ kind: SIPListKind, required: Bool) throws(RESTFailure) -> String? {
        guard let name = c.parameters["FriendlyName"] else {
            if required { throw failure(code(kind), "FriendlyName is required") }
            return nil
        }
        if let reason = SIPInputRules.name(name, field: "FriendlyName", limit: kind == .credentials ? 64 : 255) {
            throw failure(code(kind), reason)
        }
        return name
    }

    func lists(_ c: Context, kind: SIPListKind) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST")
        if c.method == "POST" {
            let name = try Self.friendlyName(c, kind, required: true) ?? ""
            let list = try storeCall(c, code: Self.code(kind)) { () throws(StoreError) in
                try store.createSIPList(kind: kind, accountSid: c.account.sid, friendlyName: name)
            }
            return Self.json(SIPResourceJSON.list(list), status: 201)
        }
        let all = try storeCall(c, code: Self.code(kind)) { () throws(StoreError) in try store.sipLists(kind: kind, accountSid: c.account.sid) }
        return try Self.page(c, key: kind == .credentials ? "credential_lists" : "ip_access_control_lists", all.map(SIPResourceJSON.list))
    }

    func list(_ c: Context, _ found: SIPList) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST, DELETE")
        switch c.method {
        case "POST":
            var list = found
            if let name = try Self.friendlyName(c, list.kind, required: false) { list.friendlyName = name }
            let updated = try storeCall(c, code: Self.code(list.kind)) { () throws(StoreError) in try store.updateSIPList(list) }
            return Self.json(SIPResourceJSON.list(updated))
        case "DELETE":
            _ = try storeCall(c, code: Self.code(found.kind)) { () throws(StoreError) in try store.deleteSIPList(sid: found.sid) }
            return .status(204)
        default:
            return Self.json(SIPResourceJSON.list(found))
        }
    }

    func entriesOf(_ c: Context, _ list: SIPList) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST")
        if list.kind == .credentials {
            if c.method == "POST" { return Self.json(SIPResourceJSON.credential(try createCredential(c, list)), status: 201) }
            let all = try storeCall(c, code: .credentialValidation) { () throws(StoreError) in try store.credentials(listSid: list.sid) }
            return try Self.page(c, key: "credentials", all.map(SIPResourceJSON.credential))
        }
        if c.method == "POST" {
            let (name, address, prefix) = try ipAddressFields(c, current: nil)
            let entry = try storeCall(c, code: .invalidParameter) { () throws(StoreError) in
                try store.createIPAddress(listSid: list.sid, friendlyName: name, address: address, prefixLength: prefix)
            }
            return Self.json(SIPResourceJSON.ipAddress(entry), status: 201)
        }
        let all = try storeCall(c, code: .invalidParameter) { () throws(StoreError) in try store.ipAddresses(listSid: list.sid) }
        return try Self.page(c, key: "ip_addresses", all.map(SIPResourceJSON.ipAddress))
    }

    func entry(_ c: Context, _ list: SIPList, sid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST, DELETE")
        if list.kind == .credentials {
            guard var credential = try storeCall(c, code: .credentialValidation, { () throws(StoreError) in try store.credential(sid: sid) }),
                  credential.listSid == list.sid else { throw .notFound(c.path) }
            switch c.method {
            case "POST":
                guard let password = c.parameters["Password"] else { throw Self.failure(.credentialValidation, "Password is required") }
                if let reason = SIPInputRules.credentialPassword(password) { throw Self.failure(.credentialValidation, reason) }
                credential.secret = SIPDigestSecret(username: credential.username, realm: settings.realm, password: password)
                let updated = try storeCall(c, code: .credentialValidation) { () throws(StoreError) in try store.updateCredential(credential) }
                return Self.json(SIPResourceJSON.credential(updated))
            case "DELETE":
                _ = try storeCall(c, code: .credentialValidation) { () throws(StoreError) in try store.deleteCredential(sid: sid) }
                return .status(204)
            default:
                return Self.json(SIPResourceJSON.credential(credential))
            }
        }
        guard var entry = try storeCall(c, code: .invalidParameter, { () throws(StoreError) in try store.ipAddress(sid: sid) }),
              entry.listSid == list.sid else { throw .notFound(c.path) }
        switch c.method {
        case "POST":
            (entry.friendlyName, entry.address, entry.prefixLength) = try ipAddressFields(c, current: entry)
            let updated = try storeCall(c, code: .invalidParameter) { () throws(StoreError) in try store.updateIPAddress(entry) }
            return Self.json(SIPResourceJSON.ipAddress(updated))
        case "DELETE":
            _ = try storeCall(c, code: .invalidParameter) { () throws(StoreError) in try store.deleteIPAddress(sid: sid) }
            return .status(204)
        default:
            return Self.json(SIPResourceJSON.ipAddress(entry))
        }
    }

    private func createCredential(_ c: Context, _ list: SIPList) throws(RESTFailure) -> SIPCredential {
        guard let username = c.parameters["Username"], let password = c.parameters["Password"] else {
            throw Self.failure(.credentialValidation, "Username and Password are required")
        }
        if let reason = SIPInputRules.credentialUsername(username) ?? SIPInputRules.credentialPassword(password) {
            throw Self.failure(.credentialValidation, reason)
        }
        let credential = try storeCall(c, code: .credentialValidation) { () throws(StoreError) in
            try store.createCredential(listSid: list.sid, username: username, password: password, realm: settings.realm)
        }
        Log.info(.platform, "created SIP credential \(credential.sid) in \(list.sid)")
        return credential
    }

    /// `FriendlyName`, `IpAddress` and `CidrPrefixLength` (default: the whole address), over the
    /// entry's current values for an update; 20001 for a malformed address or prefix.
    private func ipAddressFields(_ c: Context, current: SIPIPAddress?) throws(RESTFailure) -> (String, String, Int) {
        let p = c.parameters
        guard let address = p["IpAddress"] ?? current?.address, let bytes = IPAddressRange.parse(address) else {
            throw Self.failure(.invalidParameter, "IpAddress must be an IPv4 or IPv6 address")
        }
        var prefix = current.map { $0.address == address ? $0.prefixLength : bytes.count * 8 } ?? bytes.count * 8
        if let text = p["CidrPrefixLength"] {
            guard let n = Int(text), (0...bytes.count * 8).contains(n) else {
                throw Self.failure(.invalidParameter, "CidrPrefixLength must be 0 to \(bytes.count * 8) for \(address)")
            }
            prefix = n
        }
        guard prefix <= bytes.count * 8 else {
            throw Self.failure(.invalidParameter, "CidrPrefixLength must be 0 to \(bytes.count * 8) for \(address)")
        }
        let name = p["FriendlyName"] ?? current?.friendlyName ?? address
        if let reason = SIPInputRules.name(name, field: "FriendlyName", limit: 255) { throw Self.failure(.invalidParameter, reason) }
        return (name, address, prefix)
    }
}

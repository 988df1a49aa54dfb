/// The registrar's decisions on one REGISTER (RFC 3261 §10.3 steps 6–8, RFC 5626 §6), as a pure
/// function of the request and the address of record's current bindings. Authentication (steps
/// 1–5) comes before; storing the result and answering come after.
public enum Registrar {
    /// Bounds on what a registration may ask for: Plivo's `regTimeout` range (120 s – 30 days),
    /// 3600 s when the UA asks nothing, and at most `maxContacts` bindings per address of record.
    public struct Policy: Sendable, Hashable {
        public var minExpires = 120
        public var maxExpires = 30 * 24 * 3600
        public var defaultExpires = 3600
        public var maxContacts = 10
        public init() {}
    }

    /// A REGISTER's contents the decision needs.
    public struct Request: Sendable, Hashable {
        public enum Contacts: Sendable, Hashable {
            /// No Contact header: a query for the current bindings.
            case query
            /// `Contact: *` (only valid with `Expires: 0`).
            case wildcard
            case list([RequestedContact])
        }

        public var contacts: Contacts
        /// The Expires header, if any.
        public var expires: Int?
        public var callID: String
        public var cseq: UInt32
        /// Where it came from (`transport:address:port`).
        public var source: String

        public init(contacts: Contacts, expires: Int?, callID: String, cseq: UInt32, source: String) {
            (self.contacts, self.expires, self.callID, self.cseq, self.source) = (contacts, expires, callID, cseq, source)
        }
    }

    public enum Outcome: Sendable, Hashable {
        /// 200 OK listing `bindings` (each Contact with its remaining expires): the new set to store.
        case ok(bindings: [ContactBinding])
        /// 423 Interval Too Brief with `Min-Expires` (§10.3 step 7).
        case intervalTooBrief(minExpires: Int)
        /// 400: `*` with other contacts or a non-zero expiry (§10.3 step 6).
        case badRequest(String)
        /// A refresh not newer than the binding (same Call-ID, CSeq not higher): §10.3 step 7
        /// aborts the request; answered 500, as registrars commonly do.
        case outOfOrder
        /// 403: more bindings than `maxContacts` would remain.
        case tooManyContacts(max: Int)
    }

    /// The decision on `request` for an address of record whose bindings are `existing`, at `now`.
    public static func decide(_ request: Request, existing: [ContactBinding], policy: Policy = Policy(), now: Double) -> Outcome {
        let live = existing.filter { $0.expiresAt > now }
        switch request.contacts {
        case .query:
            return .ok(bindings: live)
        case .wildcard:
            // §10.3 step 6: `*` only with Expires: 0; it removes every binding unless one is newer.
            guard request.expires == 0 else { return .badRequest("Contact: * requires Expires: 0") }
            if live.contains(where: { $0.callID == request.callID && $0.cseq >= request.cseq }) { return .outOfOrder }
            return .ok(bindings: [])
        case .list(let contacts):
            var bindings = live
            for contact in contacts {
                let asked = contact.expires ?? request.expires ?? policy.defaultExpires
                let expires = min(max(asked, 0), policy.maxExpires)
                if expires > 0, expires < policy.minExpires { return .intervalTooBrief(minExpires: policy.minExpires) }
                let binding = ContactBinding(contact: contact.uri, expiresAt: now + Double(expires), q: contact.q, callID: request.callID,
                                             cseq: request.cseq, instance: contact.instance, regID: contact.regID, source: request.source)
                if let index = bindings.firstIndex(where: { $0.key == binding.key }) {
                    let old = bindings[index]
                    if old.callID == request.callID, old.cseq >= request.cseq { return .outOfOrder }
                    if expires == 0 { bindings.remove(at: index) } else { bindings[index] = binding }
                } else if expires > 0 {
                    bindings.append(binding)
                }
            }
            guard bindings.count <= policy.maxContacts else { return .tooManyContacts(max: policy.maxContacts) }
            return .ok(bindings: bindings)
        }
    }
}

import SIPWire

/// The state of one dialog (RFC 3261 §12): identifiers, sequence numbers, route set and remote
/// target. A value: the owner keeps it, builds in-dialog requests with it
/// (`SIPDialog+Requests.swift`) and passes it what the peer sends.
public struct SIPDialog: Sendable, Hashable {
    /// Call-ID and both tags (§12): how requests and responses find their dialog.
    public struct ID: Sendable, Hashable {
        public var callID: String
        public var localTag: String
        /// Empty when the peer sent no tag (RFC 2543 peers, §12.1.1).
        public var remoteTag: String

        public init(callID: String, localTag: String, remoteTag: String) {
            self.callID = callID
            self.localTag = localTag
            self.remoteTag = remoteTag
        }

        /// The dialog a request we receive belongs to, if it names one (§12.2.2): its To tag is
        /// ours and its From tag the peer's. Nil without Call-ID or To tag.
        public init?(receiving request: SIPRequest) {
            guard let callID = request.callID, let localTag = request.to?.tag else { return nil }
            self.init(callID: callID, localTag: localTag, remoteTag: request.from?.tag ?? "")
        }

        /// The dialog a response to our request belongs to: From tag ours, To tag the peer's.
        public init?(receiving response: SIPResponse) {
            guard let callID = response.callID, let localTag = response.from?.tag, let remoteTag = response.to?.tag else { return nil }
            self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
        }
    }

    /// Early (made by a 1xx with a To tag) or confirmed (by a 2xx), §12.1.
    public enum State: Sendable, Hashable { case early, confirmed }

    public private(set) var id: ID
    public private(set) var state: State
    /// The local CSeq number of the last request we sent; nil until we send one as UAS (§12.1.1).
    public private(set) var localSequence: UInt32?
    /// The CSeq number of the last request the peer sent in the dialog; nil until then as UAC.
    public private(set) var remoteSequence: UInt32?
    /// Our address (From of our requests) without its tag.
    public let localURI: SIPNameAddress
    /// The peer's address (To of our requests) without its tag.
    public let remoteURI: SIPNameAddress
    /// Where in-dialog requests go: the peer's Contact (§12.1), updated by target refreshes.
    public private(set) var remoteTarget: SIPAnyURI
    /// The Record-Route entries our requests pass through, first hop first.
    public private(set) var routeSet: [SIPNameAddress]
    /// A `sips` dialog (§12.1.1, §12.1.2): requests must go over TLS.
    public let isSecure: Bool
    /// Our Contact, sent in target-refresh requests and 2xx responses.
    public var localContact: SIPNameAddress

    /// The UAS side (§12.1.1), from an INVITE and the To tag we answer it with: route set from
    /// Record-Route in order, remote target from Contact, remote CSeq, secure when the request
    /// came over TLS to a `sips` Request-URI. `state` is `.early` when we send a 1xx first.
    public init(uas request: SIPRequest, localTag: String, contact: SIPNameAddress, overTLS: Bool = false,
                state: State = .confirmed) throws(SIPDialogError) {
        let (callID, cseq, from, to) = try Self.identity(request)
        guard let target = request.contacts.first?.address?.uri else { throw .missingHeader("Contact") }
        id = ID(callID: callID, localTag: localTag, remoteTag: from.tag ?? "")
        self.state = state
        localSequence = nil
        remoteSequence = cseq.number
        localURI = Self.untagged(to)
        remoteURI = Self.untagged(from)
        remoteTarget = target
        routeSet = request.recordRoutes
        isSecure = overTLS && request.uri.sipURI?.isSecure == true
        localContact = contact
    }

    /// The UAC side (§12.1.2), from the request we sent and a 2xx, or a 1xx with a To tag:
    /// route set from the response's Record-Route reversed, remote target from its Contact,
    /// local CSeq the request's. Our Contact is the request's.
    public init(uac request: SIPRequest, response: SIPResponse) throws(SIPDialogError) {
        let (callID, cseq, from, to) = try Self.identity(request)
        guard let localTag = from.tag else { throw .missingTag("From") }
        guard let remoteTag = response.to?.tag else { throw .missingTag("To") }
        guard response.statusCode > 100, response.statusCode < 300 else { throw .notDialogCreating(response.statusCode) }
        guard let contact = request.contacts.first?.address else { throw .missingHeader("Contact") }
        // A 1xx may lack Contact; the request's Request-URI is the target until one comes.
        let target = response.contacts.first?.address?.uri ?? request.uri
        id = ID(callID: callID, localTag: localTag, remoteTag: remoteTag)
        state = response.isSuccess ? .confirmed : .early
        localSequence = cseq.number
        remoteSequence = nil
        localURI = Self.untagged(from)
        remoteURI = Self.untagged(to)
        remoteTarget = target
        routeSet = response.recordRoutes.reversed()
        isSecure = request.uri.sipURI?.isSecure == true
        localContact = contact
    }

    /// Whether `request`, received, belongs to this dialog (§12.2.2: Call-ID, To tag ours,
    /// From tag the peer's).
    public func matches(_ request: SIPRequest) -> Bool { ID(receiving: request) == id }

    /// Whether `response`, to a request we sent, belongs to this dialog.
    public func matches(_ response: SIPResponse) -> Bool { ID(receiving: response) == id }

    /// Takes in a request the peer sent in this dialog (§12.2.2): refuses another dialog's (481)
    /// and one whose CSeq is lower than the last (500); records the CSeq; a target refresh
    /// (INVITE, UPDATE) with a Contact replaces the remote target. ACK and CANCEL carry the
    /// INVITE's CSeq and are only matched.
    public mutating func receive(_ request: SIPRequest) throws(SIPDialogError) {
        guard matches(request) else { throw .noSuchDialog }
        guard let cseq = request.cseq else { throw .missingHeader("CSeq") }
        if request.method == .ack || request.method == .cancel { return }
        if let remoteSequence, cseq.number < remoteSequence { throw .outOfOrder(cseq: cseq.number, last: remoteSequence) }
        remoteSequence = cseq.number
        if Self.isTargetRefresh(request.method), let target = request.contacts.first?.address?.uri { remoteTarget = target }
    }

    /// Takes in a response to a request we sent in this dialog: a 2xx confirms an early dialog
    /// and recomputes its route set (§13.2.2.4); a 2xx to a target refresh replaces the remote
    /// target with its Contact (§12.2.1.2).
    public mutating func receive(_ response: SIPResponse) {
        guard matches(response), response.isSuccess, let method = response.cseq?.method else { return }
        if state == .early, method == .invite {
            state = .confirmed
            routeSet = response.recordRoutes.reversed()
        }
        if Self.isTargetRefresh(method), let target = response.contacts.first?.address?.uri { remoteTarget = target }
    }

    /// Marks an early UAS dialog confirmed, when we send the 2xx.
    public mutating func confirm() { state = .confirmed }

    /// The next local CSeq number (§12.2.1.1: incremented by one; 1 when we have sent nothing).
    mutating func nextSequence() -> UInt32 {
        let next = localSequence.map { $0 &+ 1 } ?? 1
        localSequence = next
        return next
    }

    static func isTargetRefresh(_ method: SIPMethod) -> Bool { method == .invite || method == .update }

    private static func identity(_ request: SIPRequest) throws(SIPDialogError) -> (String, SIPCSeq, SIPNameAddress, SIPNameAddress) {
        guard let callID = request.callID else { throw .missingHeader("Call-ID") }
        guard let cseq = request.cseq else { throw .missingHeader("CSeq") }
        guard let from = request.from else { throw .missingHeader("From") }
        guard let to = request.to else { throw .missingHeader("To") }
        return (callID, cseq, from, to)
    }

    private static func untagged(_ address: SIPNameAddress) -> SIPNameAddress {
        var address = address
        address.tag = nil
        return address
    }
}

/// Why a dialog could not be made or refused a request; ``statusCode`` is the answer to send.
public enum SIPDialogError: Error, Sendable, Hashable {
    case missingHeader(String)
    case missingTag(String)
    /// A final non-2xx (or 100) creates no dialog.
    case notDialogCreating(Int)
    /// Matches no dialog: 481 (§12.2.2).
    case noSuchDialog
    /// A CSeq lower than the last one seen: 500 (§12.2.2).
    case outOfOrder(cseq: UInt32, last: UInt32)

    public var statusCode: Int {
        switch self {
        case .missingHeader, .missingTag, .notDialogCreating: 400
        case .noSuchDialog: 481
        case .outOfOrder: 500
        }
    }
}

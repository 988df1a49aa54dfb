import STUN

/// A TURN request the agent may need to repeat with fresh credentials (RFC 8656 §7–§12).
enum TURNRequest: Sendable, Hashable {
    /// REQUESTED-TRANSPORT UDP and the lifetime asked for (§7.1).
    case allocate(lifetime: UInt32)
    /// Lifetime 0 deletes the allocation (§7.2).
    case refresh(lifetime: UInt32)
    /// Installs or refreshes a permission for the peer's IP (§9).
    case createPermission(ICETransportAddress)
    /// Binds a channel number to the peer (§12).
    case channelBind(UInt16, ICETransportAddress)

    var method: STUNMethod {
        switch self {
        case .allocate: .allocate
        case .refresh: .refresh
        case .createPermission: .createPermission
        case .channelBind: .channelBind
        }
    }

    var attributes: [STUNAttribute] {
        switch self {
        case .allocate(let lifetime): [.requestedTransport(17), .lifetime(lifetime)]
        case .refresh(let lifetime): [.lifetime(lifetime)]
        case .createPermission(let peer): [.xorPeerAddress(peer.stunAddress)]
        case .channelBind(let number, let peer): [.channelNumber(number), .xorPeerAddress(peer.stunAddress)]
        }
    }
}

/// The client side of one TURN allocation (RFC 8656): long-term credentials learned from the
/// server's 401 (REALM, NONCE), the relayed address, and the permissions and channels that let
/// the agent send through it. Timers are deadlines the agent acts on in `turnTick(now:)`.
struct TURNAllocation: Sendable {
    enum Phase: Sendable, Hashable {
        case allocating
        case allocated
        case failed
        case released
    }

    /// A permission lasts 300 s (§9); refresh a minute early.
    static let permissionRefresh: Duration = .seconds(240)
    /// A channel binding lasts 600 s (§12); refresh a minute early.
    static let channelRefresh: Duration = .seconds(540)

    let server: TURNServer
    /// The local socket used to reach the server.
    let base: ICETransportAddress
    var phase = Phase.allocating
    var realm: String?
    var nonce: String?
    /// MD5(username:realm:password) (RFC 8489 §9.2.2), once the realm is known.
    var key: [UInt8]?
    var authAttempts = 0
    var relayed: ICETransportAddress?
    var mapped: ICETransportAddress?
    var refreshAt: ICEInstant?
    var permissionRefreshAt: [STUNAddress.IP: ICEInstant] = [:]
    /// Channels asked for, by peer.
    var channels: [ICETransportAddress: UInt16] = [:]
    /// Channels the server confirmed, by number.
    var boundChannels: [UInt16: ICETransportAddress] = [:]
    var channelRefreshAt: [UInt16: ICEInstant] = [:]

    init(server: TURNServer, base: ICETransportAddress) {
        self.server = server
        self.base = base
    }

    var nextDeadline: ICEInstant? {
        guard phase == .allocated else { return nil }
        return earliest(refreshAt, permissionRefreshAt.values.min(), channelRefreshAt.values.min())
    }

    /// When to refresh an allocation granted for `lifetime` seconds: a minute early, or halfway
    /// for short lifetimes.
    static func refreshDelay(lifetime: UInt32) -> Duration {
        lifetime > 120 ? .seconds(Int(lifetime) - 60) : .seconds(Int(max(lifetime, 2)) / 2)
    }

    /// The request's bytes: once the realm is known, with USERNAME, REALM, NONCE and
    /// MESSAGE-INTEGRITY under the long-term key (RFC 8489 §9.2.4).
    func encode(_ request: TURNRequest, id: STUNTransactionID, hmac: @escaping HMACFunction) -> [UInt8] {
        var attributes = request.attributes
        if key != nil, let realm, let nonce {
            attributes += [.username(server.username), .realm(realm), .nonce(nonce)]
        }
        let message = STUNMessage(type: STUNMessageType(method: request.method, messageClass: .request),
                                  transactionID: id, attributes: attributes)
        return ICEMessages.encode(message, key: key, hmac: hmac)
    }

    /// Application data or a check to `peer` through the relay: ChannelData on a bound channel
    /// (RFC 8656 §12.4), else a Send indication (§11.1), which carries no integrity.
    func wrap(_ data: [UInt8], to peer: ICETransportAddress, indicationID: STUNTransactionID) -> [UInt8] {
        if let number = channels[peer], boundChannels[number] == peer,
           let bytes = try? ChannelData(channelNumber: number, data: data).serialized() {
            return bytes
        }
        let indication = STUNMessage(type: STUNMessageType(method: .send, messageClass: .indication),
                                     transactionID: indicationID,
                                     attributes: [.xorPeerAddress(peer.stunAddress), .data(data)])
        return (try? indication.serialized()) ?? []
    }

    /// The peer and payload of a Data indication (§11.4) or ChannelData on a bound channel
    /// (§12.5); nil for anything else.
    func unwrap(_ bytes: [UInt8]) -> (peer: ICETransportAddress, payload: [UInt8])? {
        guard let first = bytes.first else { return nil }
        if PacketKind.classify(firstByte: first) == .turnChannel {
            guard let message = try? ChannelData(parsing: bytes),
                  let peer = boundChannels[message.channelNumber] else { return nil }
            return (peer, message.data)
        }
        guard let message = try? STUNMessage(parsing: bytes),
              message.type == STUNMessageType(method: .data, messageClass: .indication),
              let peer = message.xorPeerAddresses.first, let data = message.data else { return nil }
        return (ICETransportAddress(peer), data)
    }
}

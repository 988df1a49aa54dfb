import ICE
import ParleyCrypto
import STUN

/// A scripted TURN server (RFC 8656) on the in-memory network: it answers a first Allocate
/// with 401 + REALM + NONCE, checks MESSAGE-INTEGRITY under the long-term key afterwards, and
/// relays Send indications, ChannelData and peer datagrams through permissions and channels.
final class ScriptedTURNServer: Endpoint {
    struct Allocation {
        var client: ICETransportAddress
        var relayed: ICETransportAddress
        var permissions: Set<STUNAddress.IP> = []
        var channels: [UInt16: ICETransportAddress] = [:]
    }

    unowned let network: Network
    let address: ICETransportAddress
    let relayIP: String
    let username: String
    let password: String
    let realm = "parley.test"
    let nonce = "f00dfeed"
    var allocations: [Allocation] = []
    /// What happened, in order: "401", "allocate", "refresh", "permission", "channel", "send",
    /// "channeldata", "data", "badintegrity", "nopermission".
    var log: [String] = []

    init(_ network: Network, address: ICETransportAddress, relayIP: String, username: String, password: String) {
        self.network = network
        self.address = address
        self.relayIP = relayIP
        self.username = username
        self.password = password
        network.endpoints.append(self)
    }

    var key: [UInt8] { STUNIntegrity.longTermKey(username: username, realm: realm, password: password, md5: md5) }

    func owns(_ a: ICETransportAddress) -> Bool { a == address || allocations.contains { $0.relayed == a } }
    var nextDeadline: ICEInstant? { nil }
    func tick() {}

    func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress) {
        if local == address { fromClient(bytes, source) } else { fromPeer(bytes, source, relayed: local) }
    }

    private func fromClient(_ bytes: [UInt8], _ client: ICETransportAddress) {
        let index = allocations.firstIndex { $0.client == client } ?? -1
        if let channel = try? ChannelData(parsing: bytes), index >= 0 {
            guard let peer = allocations[index].channels[channel.channelNumber] else { return }
            log.append("channeldata")
            network.send(channel.data, from: allocations[index].relayed, to: peer)
            return
        }
        guard let message = try? STUNMessage(parsing: bytes) else { return }
        if message.type == STUNMessageType(method: .send, messageClass: .indication), index >= 0 {
            guard let peer = message.xorPeerAddresses.first.map(ICETransportAddress.init), let data = message.data,
                  allocations[index].permissions.contains(peer.ip) else { log.append("nopermission"); return }
            log.append("send")
            network.send(data, from: allocations[index].relayed, to: peer)
            return
        }
        guard message.type.messageClass == .request else { return }
        guard message.attribute(.messageIntegrity) != nil else {
            log.append("401")
            respond(message, error: .unauthenticated, extra: [.realm(realm), .nonce(nonce)], to: client, signed: false)
            return
        }
        let integrity = STUNIntegrity.sha1(key: key, hmac: hmacSHA1)
        guard message.username == username, message.realm == realm, message.nonce == nonce,
              (try? bytes.withUnsafeBytes { try STUNMessage.verifyIntegrity(of: $0, using: integrity) }) == .valid else {
            log.append("badintegrity")
            respond(message, error: .unauthenticated, extra: [.realm(realm), .nonce(nonce)], to: client, signed: false)
            return
        }
        switch message.type.method {
        case .allocate:
            log.append("allocate")
            let relayed = addr(relayIP, UInt16(49152 + allocations.count))
            allocations.append(Allocation(client: client, relayed: relayed))
            respond(message, attributes: [.xorRelayedAddress(relayed.stunAddress), .xorMappedAddress(client.stunAddress),
                                          .lifetime(600)], to: client)
        case .refresh where index >= 0:
            log.append("refresh")
            respond(message, attributes: [.lifetime(message.lifetime ?? 600)], to: client)
        case .createPermission where index >= 0:
            log.append("permission")
            for peer in message.xorPeerAddresses { allocations[index].permissions.insert(peer.ip) }
            respond(message, attributes: [], to: client)
        case .channelBind where index >= 0:
            log.append("channel")
            if let number = message.channelNumber, let peer = message.xorPeerAddresses.first {
                allocations[index].channels[number] = ICETransportAddress(peer)
                allocations[index].permissions.insert(peer.ip)
            }
            respond(message, attributes: [], to: client)
        default:
            respond(message, error: .badRequest, extra: [], to: client, signed: true)
        }
    }

    private func fromPeer(_ bytes: [UInt8], _ peer: ICETransportAddress, relayed: ICETransportAddress) {
        guard let allocation = allocations.first(where: { $0.relayed == relayed }),
              allocation.permissions.contains(peer.ip) else { log.append("nopermission"); return }
        if let number = allocation.channels.first(where: { $0.value == peer })?.key {
            network.send(try! ChannelData(channelNumber: number, data: bytes).serialized(), from: address, to: allocation.client)
        } else {
            log.append("data")
            let indication = STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication),
                                         transactionID: STUNTransactionID(high: 7, low: UInt64(log.count)),
                                         attributes: [.xorPeerAddress(peer.stunAddress), .data(bytes)])
            network.send(try! indication.serialized(), from: address, to: allocation.client)
        }
    }

    private func respond(_ request: STUNMessage, attributes: [STUNAttribute], to client: ICETransportAddress) {
        let response = STUNMessage(type: STUNMessageType(method: request.type.method, messageClass: .successResponse),
                                   transactionID: request.transactionID, attributes: attributes)
        network.send(try! response.serialized(integrity: .sha1(key: key, hmac: hmacSHA1), fingerprint: true),
                     from: address, to: client)
    }

    private func respond(_ request: STUNMessage, error: STUNErrorCode, extra: [STUNAttribute],
                         to client: ICETransportAddress, signed: Bool) {
        let response = STUNMessage(type: STUNMessageType(method: request.type.method, messageClass: .errorResponse),
                                   transactionID: request.transactionID, attributes: [.errorCode(error)] + extra)
        let integrity = signed ? STUNIntegrity.sha1(key: key, hmac: hmacSHA1) : nil
        network.send(try! response.serialized(integrity: integrity, fingerprint: true), from: address, to: client)
    }
}

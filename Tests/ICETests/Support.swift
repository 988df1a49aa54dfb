import ICE
import ParleyCrypto
import STUN

/// ParleyCrypto's HMAC-SHA1 and MD5, injected the way the server does it.
let hmacSHA1: HMACFunction = { HMAC.sha1(key: $0, message: $1) }
let md5: MD5Function = { MD5.hash($0) }

/// A deterministic generator (SplitMix64) so runs repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func addr(_ ip: String, _ port: UInt16) -> ICETransportAddress {
    ICETransportAddress(ip, port: port)!
}

/// A virtual clock: tests advance it by hand.
struct VirtualClock {
    var now = ICEInstant.zero
    mutating func advance(_ d: Duration) { now = now.advanced(by: d) }
}

let serverCredentials = ICECredentials(ufrag: "srvU", pwd: "serverpassword0123456789")
let clientCredentials = ICECredentials(ufrag: "cliU", pwd: "clientpassword0123456789")

/// A connectivity check as a browser would send it to the server (RFC 8445 §7.2.2), built by
/// hand from STUN values.
func makeCheck(username: String = "srvU:cliU", password: String = serverCredentials.pwd,
               controlling: Bool = true, tieBreaker: UInt64 = 42, useCandidate: Bool = false,
               id: STUNTransactionID = STUNTransactionID(high: 1, low: 2),
               extra: [STUNAttribute] = [], fingerprint: Bool = true) -> [UInt8] {
    var attributes: [STUNAttribute] = [.username(username), .priority(0x6E00_1EFF),
                                       controlling ? .iceControlling(tieBreaker) : .iceControlled(tieBreaker)]
    if useCandidate { attributes.append(.useCandidate) }
    attributes += extra
    let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
    return try! message.serialized(integrity: .sha1(key: Array(password.utf8), hmac: hmacSHA1), fingerprint: fingerprint)
}

/// The bytes of every `.send` action.
func sentBytes(_ actions: [ICEAction]) -> [[UInt8]] {
    actions.compactMap { if case .send(let b, _) = $0 { b } else { nil } }
}

func states(_ actions: [ICEAction]) -> [ICEConnectionState] {
    actions.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }
}

import ICE
import ParleyCore
import Testing
import WebRTC

/// ICE server URLs as SDKs get them (RFC 7064 `stun:`, RFC 7065 `turn:`), IP literals only.
@Suite struct ICEServerURLTests {
    @Test func stunAndTurnURLsBecomeServers() throws {
        #expect(try PeerConnection.ICEServer(url: "stun:127.0.0.1:3478", username: nil, password: nil)
                == .stun(try #require(ICETransportAddress("127.0.0.1", port: 3478))))
        let turn = try PeerConnection.ICEServer(url: "turn:[::1]:3479?transport=udp", username: "1767225600:bob", password: "kD7s")
        #expect(turn == .turn(TURNServer(address: try #require(ICETransportAddress("::1", port: 3479)), username: "1767225600:bob",
                                         password: "kD7s")))
    }

    @Test func otherURLsAreRefusedWith53400() {
        for url in ["turns:127.0.0.1:5349", "stun:turn.example.com:3478", "stun:127.0.0.1", "127.0.0.1:3478", "stun:127.0.0.1:99999", ""] {
            #expect(throws: ParleyError.self, "\(url)") { _ = try PeerConnection.ICEServer(url: url, username: nil, password: nil) }
        }
    }
}

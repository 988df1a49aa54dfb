import Foundation
import ICE
import ParleyCrypto
import Testing
@testable import WebRTC

/// The SDP captures in `Tests/Fixtures/sdp/` (where each came from: `Tests/Fixtures/README.md`).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/sdp")

    struct Missing: Error { var path: String }

    /// The fixture text; a missing file is a failure, not a skip.
    static func text(_ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("SDP fixture missing: \(path)")
            throw Missing(path: path)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

let testFingerprint = DTLSFingerprint(algorithm: .sha256, certificateDER: Array("test certificate".utf8))

func testParameters(port: UInt16 = 40_000) -> AnswerParameters {
    AnswerParameters(localCredentials: ICECredentials(ufrag: "srvU", pwd: "serverpassword0123456789"),
                     fingerprint: testFingerprint, candidates: [ICETransportAddress("127.0.0.1", port: port)!],
                     ssrc: 0xCAFE_F00D, cname: "parley-test", sessionID: 42)
}

/// A minimal WebRTC audio offer, edited per test.
func makeOffer(codecs: String = "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n",
               formats: String = "111", setup: String = "actpass", fingerprint: DTLSFingerprint = testFingerprint,
               ufrag: String = "cliU", pwd: String = "clientpassword0123456789", candidatePort: UInt16 = 9,
               extra: String = "a=rtcp-mux\r\n") -> String {
    """
    v=0\r
    o=- 1 2 IN IP4 127.0.0.1\r
    s=-\r
    t=0 0\r
    a=group:BUNDLE 0\r
    m=audio \(candidatePort) UDP/TLS/RTP/SAVPF \(formats)\r
    c=IN IP4 127.0.0.1\r
    a=mid:0\r
    a=sendrecv\r
    a=ice-ufrag:\(ufrag)\r
    a=ice-pwd:\(pwd)\r
    a=fingerprint:\(fingerprint.sdpValue)\r
    a=setup:\(setup)\r
    \(extra)\(codecs)a=ssrc:4660 cname:client\r
    a=candidate:1 1 udp 2130706431 127.0.0.1 \(candidatePort) typ host\r
    a=end-of-candidates\r

    """
}

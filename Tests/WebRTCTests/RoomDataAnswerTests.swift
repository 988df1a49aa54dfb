import Foundation
import ICE
import ParleyCore
import ParleyCrypto
import SDP
import Testing
import WebRTC

/// The data channel section of room offers (RFC 8841): a browser that created an RTCDataChannel
/// offers `m=application 9 UDP/DTLS/SCTP webrtc-datachannel` in its BUNDLE group; the answer
/// accepts it with our SCTP port and largest message, and nothing of RTP.
@Suite struct RoomDataAnswerTests {
    /// `RoomSessionTests.threeSectionOffer` with Chromium's data channel section as mid 3.
    static func offer(application: [String] = chromiumApplication, bundled: Bool = true) -> String {
        RoomSessionTests.threeSectionOffer
            .replacingOccurrences(of: "a=group:BUNDLE 0 1 2", with: bundled ? "a=group:BUNDLE 0 1 2 3" : "a=group:BUNDLE 0 1 2")
            + application.joined(separator: "\r\n") + "\r\n"
    }

    static let chromiumApplication = [
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=ice-ufrag:abcd",
        "a=ice-pwd:abcdefghijklmnopqrstuvwx", "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
        "a=setup:actpass", "a=mid:3", "a=sctp-port:5000", "a=max-message-size:262144",
    ]

    static func read(_ sdp: String) throws -> MediaOffer {
        try MediaOffer(roomOffer: try SessionDescription(parsing: sdp), videoCodecs: MediaTransportServer.roomVideoCodecs)
    }

    @Test func aBundledDataChannelSectionIsAccepted() async throws {
        let parsed = try Self.read(Self.offer())
        let application = try #require(parsed.application)
        #expect(application.index == 3 && application.mid == "3" && application.sctpPort == 5000)
        #expect(application.maxMessageSize == 262_144 && application.sendLimit == 65_536)
        #expect(parsed.accepted.map(\.mid) == ["0", "1", "2"], "the data section is no RTP section")
        #expect(parsed.bundleMids == ["0", "1", "2", "3"])

        let server = try MediaTransportServer()
        let answer = try await server.createRoomSession(offer: Self.offer()) { _ in }
        #expect(answer.application == "3")
        let description = try SessionDescription(parsing: answer.sdp)
        #expect(description.bundleGroup(containing: "3") == ["0", "1", "2", "3"])
        let data = description.media[3]
        #expect(data.mediaType == "application" && data.port != 0 && data.proto == "UDP/DTLS/SCTP")
        #expect(data.formats == ["webrtc-datachannel"] && data.mid == "3")
        #expect(data.sctpPort == 5000 && data.maxMessageSize == 65_536)
        #expect(!data.rtcpMux && data.ssrcs.isEmpty, "answer:\n\(answer.sdp)")
        #expect(data.attributes.contains { $0.name == "setup" && $0.value == "passive" })
        #expect(answer.sdp.contains("a=max-message-size:65536\r\n") && answer.sdp.contains("a=sctp-port:5000\r\n"))
        await server.shutdown()
    }

    @Test func whatIsNoBundledDataChannelSectionIsRejected() throws {
        // Outside the BUNDLE group, or the pre-RFC 8841 form (`DTLS/SCTP 5000` with a=sctpmap).
        #expect(try Self.read(Self.offer(bundled: false)).application == nil)
        let old = ["m=application 9 DTLS/SCTP 5000", "c=IN IP4 0.0.0.0", "a=mid:3", "a=sctpmap:5000 webrtc-datachannel 1024"]
        #expect(try Self.read(Self.offer(application: old)).application == nil)
        // Port 0 (rejected by the offerer) or sctp-port 0.
        let rejected = Self.chromiumApplication.map { $0.hasPrefix("m=application") ? "m=application 0 UDP/DTLS/SCTP webrtc-datachannel" : $0 }
        #expect(try Self.read(Self.offer(application: rejected)).application == nil)
        let zeroPort = Self.chromiumApplication.map { $0 == "a=sctp-port:5000" ? "a=sctp-port:0" : $0 }
        #expect(try Self.read(Self.offer(application: zeroPort)).application == nil)
        // The answer then rejects it in place (port 0).
        let answer = ServerAnswerBuilder.answer(to: try Self.read(Self.offer(bundled: false)), parameters: RoomDataAnswerTests.parameters)
        #expect(answer.media[3].port == 0 && answer.media[3].mid == "3")
        // Call sessions take no data channels.
        let call = try MediaOffer(offer: try SessionDescription(parsing: Self.offer()), videoCodecs: [.vp8])
        #expect(call.application == nil && ServerAnswerBuilder.answer(to: call, parameters: Self.parameters).media[3].port == 0)
    }

    @Test func limitsAndPortsFollowRFC8841() throws {
        func application(_ lines: [String]) throws -> OfferedApplication? {
            try Self.read(Self.offer(application: Self.chromiumApplication.filter {
                !$0.hasPrefix("a=sctp-port") && !$0.hasPrefix("a=max-message-size")
            } + lines)).application
        }
        // Absent: port 5000, 64 KiB (§5, §6.1); 0: no limit; ours caps what we send.
        #expect(try application([])?.sctpPort == 5000 && application([])?.maxMessageSize == 65_536)
        #expect(try application(["a=max-message-size:0"])?.maxMessageSize == Int.max)
        #expect(try application(["a=max-message-size:1024"])?.sendLimit == 1024)
        #expect(try application(["a=sctp-port:5001"])?.sctpPort == 5001)
    }

    @Test func aDataOnlyOfferIsARoomSessionToo() async throws {
        let offer = ["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0"]
            + Self.chromiumApplication.map { $0 == "a=mid:3" ? "a=mid:0" : $0 } + [""]
        let parsed = try Self.read(offer.joined(separator: "\r\n"))
        #expect(parsed.application?.mid == "0" && parsed.accepted.isEmpty && parsed.bundleMids == ["0"])
        let server = try MediaTransportServer()
        let answer = try await server.createRoomSession(offer: offer.joined(separator: "\r\n")) { _ in }
        #expect(answer.application == "0" && answer.sending.isEmpty && answer.receiving.isEmpty)
        #expect(try SessionDescription(parsing: answer.sdp).media.map(\.mediaType) == ["application"])
        await server.shutdown()
        // Without an audio, video or data channel section there is nothing to take.
        #expect(throws: ParleyError.self) {
            try Self.read(["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "m=text 9 RTP/AVP 98", "a=mid:0", ""].joined(separator: "\r\n"))
        }
    }

    static let parameters = AnswerParameters(
        localCredentials: .init(ufrag: "srvr", pwd: "serverserverserverserver"),
        fingerprint: DTLSFingerprint(algorithm: .sha256, digest: [UInt8](repeating: 1, count: 32))!,
        candidates: [], ssrc: 1, cname: "c", sessionID: 1)
}

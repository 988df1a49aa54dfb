import ParleyCore
import SDP
import Testing
import WebRTC

/// The offer of a client `PeerConnection` with transceivers (unified plan, RFC 8829 §5.2), read
/// back with the project's SDP parser and as the room server reads it (`MediaOffer(roomOffer:)`).
@Suite struct TransceiverOfferTests {
    @Test func everyTransceiverIsASectionOfTheBundleWithItsMidExtensionsAndStreams() async throws {
        var configuration = PeerConnection.Configuration()
        configuration.offerDataChannels = true
        let pc = try PeerConnection(configuration: configuration)
        let mic = try await pc.addTransceiver(kind: .audio, direction: .sendonly, trackID: "mic")
        let camera = try await pc.addTransceiver(kind: .video, direction: .sendonly, sendEncodings: ["q", "h", "f"], trackID: "camera")
        let screen = try await pc.addTransceiver(kind: .video, direction: .sendonly, trackID: "screen")
        let audioSlot = try await pc.addTransceiver(kind: .audio, direction: .recvonly)
        let videoSlot = try await pc.addTransceiver(kind: .video, direction: .recvonly)
        #expect([mic, camera, screen, audioSlot, videoSlot].map(\.mid) == ["0", "1", "2", "3", "4"])
        let offer = try SessionDescription(parsing: try await pc.createOffer())

        // One BUNDLE group of every section, the data channel section last.
        #expect(offer.bundleGroup(containing: "0") == ["0", "1", "2", "3", "4", "5"])
        let media = offer.media
        #expect(media.map(\.mediaType) == ["audio", "video", "video", "audio", "video", "application"])
        #expect(media.map(\.mid) == ["0", "1", "2", "3", "4", "5"])
        #expect(media.prefix(5).map(\.direction) == [.sendonly, .sendonly, .sendonly, .recvonly, .recvonly])
        // The same transport in every section (RFC 8843 §7.1.3).
        #expect(Set(media.compactMap(\.iceUfrag)).count == 1 && media.allSatisfy { $0.rtcpMux || $0.mediaType == "application" })

        // Audio: Opus first, transport-cc, the audio level, transport-wide sequence and mid extensions.
        #expect(media[0].payloadTypes.first == 111 && media[0].rtpMap(for: 111)?.encodingName == "opus")
        #expect(media[0].extmaps.map(\.uri) == ["urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                                                "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                                                "urn:ietf:params:rtp-hdrext:sdes:mid"])
        #expect(media[0].msids.first?.trackID == "mic" && media[0].ssrcs.count == 1)

        // Video: VP8 with Chromium's feedback and an RTX payload type (RFC 4588 §8.1).
        let vp8 = media[2]
        #expect(vp8.payloadTypes == [96, 97] && vp8.rtpMap(for: 97)?.encodingName == "rtx")
        #expect(vp8.formatParameters(for: 97)?.parameterString == "apt=96")
        #expect(Set(vp8.rtcpFeedback(for: 96).map { "\($0.type) \($0.parameter ?? "")" })
                == ["goog-remb ", "transport-cc ", "ccm fir", "nack ", "nack pli"])
        #expect(vp8.extmaps.map(\.id) == [2, 3, 4, 10, 11])
        // One stream with its RTX stream grouped (RFC 5576 §4.2 FID).
        let fid = try #require(vp8.ssrcGroups.first { $0.semantics == "FID" })
        #expect(fid.ssrcs.count == 2 && vp8.ssrcs == fid.ssrcs && vp8.msids.first?.trackID == "screen")

        // Simulcast: a rid per stream, `a=simulcast:send q;h;f`, and no SSRCs (told apart by rid).
        let simulcast = media[1]
        #expect(simulcast.rids.map(\.id) == ["q", "h", "f"] && simulcast.rids.allSatisfy { $0.direction == .send })
        #expect(simulcast.simulcast?.send.map { $0.map(\.rid) } == [["q"], ["h"], ["f"]])
        #expect(simulcast.ssrcs.isEmpty && simulcast.msids.first?.trackID == "camera")

        // Receive slots send nothing: no msid, no SSRC.
        #expect(media[3].ssrcs.isEmpty && media[3].msids.isEmpty && media[4].ssrcs.isEmpty)

        // All local SSRCs distinct.
        var ssrcs: [UInt32] = []
        for transceiver in [mic, camera, screen] {
            let streams = try #require(await pc.statistics(of: transceiver)).sendStreams
            ssrcs += streams.flatMap { [$0.ssrc] + ($0.rtxSSRC.map { [$0] } ?? []) }
        }
        #expect(ssrcs.count == 1 + 6 + 2 && Set(ssrcs).count == ssrcs.count)
        #expect(try #require(await pc.statistics(of: camera)).sendStreams.map(\.rid) == ["q", "h", "f"])

        // What the room server reads from it.
        let room = try MediaOffer(roomOffer: offer, videoCodecs: MediaTransportServer.roomVideoCodecs)
        #expect(room.accepted.map(\.mid) == ["0", "1", "2", "3", "4"] && room.application?.mid == "5")
        #expect(room.sections[1].simulcast?.rids == ["q", "h", "f"])
        #expect(room.sections[1].simulcast?.midExtensionID == 4 && room.sections[1].simulcast?.streamIDExtensionID == 10)
        #expect(room.sections[4].rtxPayloadType == 97 && room.sections[4].absSendTimeExtensionID == 2)
        #expect(room.sections[0].audioLevelExtensionID == 1 && room.sections[0].transportCCExtensionID == 3)
        #expect(room.sections[2].remoteSSRCs == fid.ssrcs)
        await pc.close()
    }

    @Test func invalidTransceiversAreRefused() async throws {
        let pc = try PeerConnection()
        await #expect(throws: ParleyError.self) { try await pc.addTransceiver(kind: .audio, direction: .sendonly, sendEncodings: ["a"]) }
        await #expect(throws: ParleyError.self) { try await pc.addTransceiver(kind: .video, direction: .recvonly, sendEncodings: ["a"]) }
        await #expect(throws: ParleyError.self) { try await pc.addTransceiver(kind: .video, sendEncodings: ["a", "a"]) }
        await #expect(throws: ParleyError.self) { try await pc.addTransceiver(kind: .video, sendEncodings: ["a b"]) }
        await #expect(throws: ParleyError.self) { try await pc.addTransceiver(kind: .video, sendEncodings: ["1", "2", "3", "4", "5"]) }
        // A call connection (offered without transceivers) takes none afterwards.
        let call = try PeerConnection()
        _ = try await call.createOffer()
        await #expect(throws: ParleyError.self) { try await call.addTransceiver(kind: .audio) }
        // A transceiver connection's second offer before its answer is refused (one negotiation at a time).
        _ = try await pc.addTransceiver(kind: .audio)
        _ = try await pc.createOffer()
        await #expect(throws: ParleyError.self) { try await pc.createOffer() }
        await call.close()
        await pc.close()
    }
}

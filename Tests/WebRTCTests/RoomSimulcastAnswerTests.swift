import Foundation
import SDP
import Testing
import WebRTC

/// Simulcast in room offers (RFC 8853): a video section a browser publishes with
/// `sendEncodings` offers `a=simulcast:send` with its `a=rid` lines and no SSRCs; the answer
/// takes each rid to receive and the mid and RtpStreamId extensions that bind them.
@Suite struct RoomSimulcastAnswerTests {
    /// `RoomSessionTests.threeSectionOffer` with its published video section made Chromium's
    /// simulcast form (`q`, `h`, `f`; mid extension 4, rid 10, repaired rid 11).
    static func simulcastOffer(streams: String = "q;h;f", rids: [String] = ["q", "h", "f"], extmaps: Bool = true) -> String {
        let lines = (extmaps ? ["a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                                "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
                                "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"] : [])
            + rids.map { "a=rid:\($0) send" } + ["a=simulcast:send \(streams)"]
        return RoomSessionTests.threeSectionOffer.replacingOccurrences(
            of: "a=mid:1\r\na=sendonly\r\na=rtcp-mux\r\na=ssrc:22 cname:x\r\n",
            with: "a=mid:1\r\na=sendonly\r\na=rtcp-mux\r\n" + lines.joined(separator: "\r\n") + "\r\n")
    }

    @Test func theAnswerReceivesEachOfferedRID() async throws {
        let offer = Self.simulcastOffer()
        #expect(offer != RoomSessionTests.threeSectionOffer)
        let server = try MediaTransportServer()
        let answer = try await server.createRoomSession(offer: offer) { _ in }
        let media = try SessionDescription(parsing: answer.sdp).media
        let video = media[1]
        #expect(video.rids.map(\.id) == ["q", "h", "f"] && video.rids.allSatisfy { $0.direction == .recv })
        #expect(video.simulcast == SDPSimulcast(receive: [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]]))
        #expect(video.extmaps.map(\.id).sorted() == [4, 10], "the repaired rid is not taken: no RTX")
        #expect(video.extmaps.allSatisfy { $0.direction == nil })
        // The audio section and the receive slot have none of it.
        #expect(media[0].simulcast == nil && media[2].simulcast == nil && media[0].rids.isEmpty)
        await server.shutdown()
    }

    @Test func simulcastWithoutWhatBindsItsStreamsIsNotTaken() throws {
        func parsed(_ sdp: String) throws -> OfferedMediaSection {
            try MediaOffer(roomOffer: try SessionDescription(parsing: sdp), videoCodecs: MediaTransportServer.roomVideoCodecs)
                .sections[1]
        }
        #expect(try parsed(Self.simulcastOffer()).simulcast?.rids == ["q", "h", "f"])
        #expect(try parsed(Self.simulcastOffer()).simulcast?.midExtensionID == 4)
        #expect(try parsed(Self.simulcastOffer()).simulcast?.streamIDExtensionID == 10)
        // Without the mid and rid extensions, the streams cannot be told apart.
        #expect(try parsed(Self.simulcastOffer(extmaps: false)).simulcast == nil)
        // A rid without its `a=rid` line is left out (RFC 8853 §5.3); alternatives take the first with one.
        #expect(try parsed(Self.simulcastOffer(streams: "q;x,h;f", rids: ["q", "h", "f"])).simulcast?.rids == ["q", "h", "f"])
        #expect(try parsed(Self.simulcastOffer(streams: "q;h;f", rids: ["q", "f"])).simulcast?.rids == ["q", "f"])
        #expect(try parsed(Self.simulcastOffer(streams: "q;h", rids: [])).simulcast == nil)
    }
}

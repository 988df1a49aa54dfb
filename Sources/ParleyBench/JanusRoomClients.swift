import JSONWire
import ParleyCrypto
import ParleyNet
import SDP

/// The rooms bench's raw clients against Janus VideoRoom: the same publishers and subscribers
/// (same packets, same pacing, same loop), signalled through `JanusAPI` instead of
/// `MediaTransportServer`. Our DTLS side is always the client: publishers offer `setup:active`,
/// subscribers answer Janus's `actpass` offer with `active` (RFC 8842 §5.2). Janus runs full ICE:
/// the clients answer its checks (`answersChecks`) besides sending their own nominating one.
extension RoomPublisher {
    /// Joins `room` as a publisher and publishes audio + video; returns the client and its feed ID.
    static func connectJanus(api: JanusAPI, room: Int64, loop: EventLoop, host: String, index: Int,
                             videoPacketsPerTick: Int) async throws -> (client: RoomPublisher, feed: Int64) {
        let client = RoomPublisher(loop: loop, index: index, videoPacketsPerTick: videoPacketsPerTick)
        client.answersChecks = true
        let handle = try await api.attach()
        let joined = try await api.message(handle, ["request": .string("join"), "ptype": .string("publisher"),
                                                    "room": .integer(room), "display": .string("p\(index)")])
        guard let feed = joined.data.janusInteger("id") else { throw JanusAPI.Failure(description: "join: \(joined.data)") }
        try await client.handshake(host: host, index: index, exchange: { fingerprint, port in
            let offer = sessionLines(index: index, bundle: ["0", "1"], host: host)
                + section("audio", mid: "0", port: port, index: index, fingerprint: fingerprint, direction: "sendonly",
                          rtpmap: "111 opus/48000/2", ssrc: client.ssrcs.audio, first: true, host: host, setup: "active")
                + section("video", mid: "1", port: port, index: index, fingerprint: fingerprint, direction: "sendonly",
                          rtpmap: "96 VP8/90000", ssrc: client.ssrcs.video, first: false, host: host, setup: "active")
            let reply = try await api.message(handle, ["request": .string("publish"), "audio": .bool(true), "video": .bool(true)],
                                              jsep: ["type": .string("offer"), "sdp": .string(offer)])
            guard let answer = reply.jsep?["sdp"]?.stringValue else { throw JanusAPI.Failure(description: "publish: no answer") }
            return answer
        }, remote: janusCandidate)
        return (client, feed)
    }
}

extension RoomSubscriber {
    /// Joins `room` as a subscriber to every stream of `feeds`, answers Janus's offer recvonly and starts.
    static func connectJanus(api: JanusAPI, room: Int64, feeds: [Int64], loop: EventLoop, host: String,
                             index: Int) async throws -> RoomSubscriber {
        let client = RoomSubscriber(loop: loop)
        client.answersChecks = true
        client.latencies.reserveCapacity(100_000)
        let handle = try await api.attach()
        try await client.handshake(host: host, index: index, exchange: { fingerprint, port in
            let streams = feeds.map { JSONValue.object(["feed": .integer($0)]) }
            let join: JSONObject = ["request": .string("join"), "ptype": .string("subscriber"), "room": .integer(room),
                                    "streams": .array(streams)]
            var attached = (data: JSONObject(), jsep: JSONObject?.none)
            for attempt in 0... {   // a feed exists once its publisher's DTLS is up (Janus's webrtcup): 428 until then
                do {
                    attached = try await api.message(handle, join)
                    break
                } catch let error as JanusAPI.Failure where attempt < 100 && error.description.contains("428") {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            guard let offer = attached.jsep?["sdp"]?.stringValue else { throw JanusAPI.Failure(description: "subscribe: no offer") }
            let answer = try recvonlyAnswer(to: offer, fingerprint: fingerprint, port: port, index: index, host: host)
            _ = try await api.message(handle, ["request": .string("start")],
                                      jsep: ["type": .string("answer"), "sdp": .string(answer)])
            return offer
        }, remote: janusCandidate)
        return client
    }

    /// A bundled answer taking every offered section recvonly with its first payload type.
    static func recvonlyAnswer(to offer: String, fingerprint: DTLSFingerprint, port: UInt16, index: Int,
                               host: String) throws -> String {
        let sdp = try SessionDescription(parsing: offer)
        var mids: [String] = [], sections: [String] = []
        for media in sdp.media {
            guard let mid = media.attributeValue("mid"), let pt = media.formats.first else { continue }
            let rtpmap = media.attributes(named: "rtpmap").compactMap(\.value).first { $0.hasPrefix("\(pt) ") } ?? "\(pt) -"
            if media.isRejected {
                sections.append("m=\(media.mediaType) 0 \(media.proto) \(pt)\r\nc=IN IP4 \(host)\r\na=mid:\(mid)\r\na=inactive\r\n")
                continue
            }
            sections.append(section(media.mediaType, mid: mid, port: port, index: index, fingerprint: fingerprint,
                                    direction: "recvonly", rtpmap: rtpmap, ssrc: nil, first: mids.isEmpty, host: host,
                                    setup: "active"))
            mids.append(mid)
        }
        return sessionLines(index: index, bundle: mids, host: host) + sections.joined()
    }
}

/// Janus's first IPv4 UDP host candidate (it sends them in the SDP: half trickle).
@Sendable func janusCandidate(_ sdp: SessionDescription) throws -> SocketAddress {
    let candidates = sdp.media.flatMap(\.candidates)
    guard let host = candidates.first(where: { $0.transport.lowercased() == "udp" && $0.address.contains(".") }) else {
        throw JanusAPI.Failure(description: "no IPv4 UDP candidate from Janus")
    }
    return try SocketAddress.resolve(host: host.address, port: Int(host.port))
}


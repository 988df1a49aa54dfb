import JSONWire

// JSON fields of the peer-to-peer room payloads (docs/signaling.md §12, "Peer-to-peer rooms").

extension SignalingFieldReader {
    /// `iceServers` of `room.joined`: absent is none.
    func iceServers() throws(SignalingError) -> [RoomICEServer] {
        var result: [RoomICEServer] = []
        for server in try objectArray("iceServers", limit: RoomProtocol.maxICEServers, optional: true) {
            let urls = try server.identifierArray("urls", limit: RoomProtocol.maxICEServers)
            guard !urls.isEmpty else { throw server.bad("\"urls\" is empty") }
            result.append(RoomICEServer(urls: urls, username: try server.optionalString("username"),
                                        credential: try server.optionalString("credential")))
        }
        return result
    }
}

extension RoomICEServer {
    var json: JSONObject {
        var o = JSONObject()
        o["urls"] = .array(urls.map(JSONValue.string))
        o.set("username", username)
        o.set("credential", credential)
        return o
    }
}

extension RoomPeerDescription {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.string("participantSid"), sdp: try f.sdp("sdp"), published: try f.published(optional: true))
    }

    func write(into o: inout JSONObject) {
        o.set("participantSid", participantSid)
        o.set("sdp", sdp)
        if !published.isEmpty { o.set("published", objects: published.map(\.json)) }
    }
}

extension RoomPeerCandidate {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.string("participantSid"),
                  candidate: try f.string("candidate", .identifierOrEmpty, limit: RoomProtocol.maxCandidateBytes),
                  sdpMid: try f.optionalString("sdpMid"),
                  sdpMLineIndex: try f.optionalInt("sdpMLineIndex"),
                  usernameFragment: try f.optionalString("usernameFragment"))
        if let index = sdpMLineIndex, !(0...RoomProtocol.maxMLineIndex).contains(index) {
            throw f.bad("\"sdpMLineIndex\" must be 0…\(RoomProtocol.maxMLineIndex)")
        }
    }

    func write(into o: inout JSONObject) {
        o.set("participantSid", participantSid)
        o.set("candidate", candidate)
        o.set("sdpMid", sdpMid)
        o.set("sdpMLineIndex", sdpMLineIndex)
        o.set("usernameFragment", usernameFragment)
    }
}

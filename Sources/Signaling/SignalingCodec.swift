import JSONWire
import ParleyCore

/// Decodes and encodes signaling messages: one JSON object per WebSocket text message
/// (docs/signaling.md). Pure: text in, value out; never traps on any input.
public enum SignalingCodec {
    /// Decodes one text message.
    public static func decode(_ text: String) throws(SignalingError) -> SignalingEnvelope {
        try decode(text.utf8)
    }

    /// Decodes one message from its UTF-8 bytes. Throws 31400 for over `SignalingLimits.maxMessageBytes`,
    /// 31100 for anything that is not a known message with the right fields, 31400 or 31484 for
    /// values out of limits; the error carries the message's `id` when it could be read.
    public static func decode(_ bytes: some Collection<UInt8>) throws(SignalingError) -> SignalingEnvelope {
        guard bytes.count <= SignalingLimits.maxMessageBytes else {
            throw SignalingError(.badRequest, "message is larger than \(SignalingLimits.maxMessageBytes) bytes")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, maxDepth: SignalingLimits.maxJSONDepth)
        } catch {
            throw SignalingError(.malformedRequest, "invalid JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let object) = json else {
            throw SignalingError(.malformedRequest, "a message must be a JSON object")
        }
        let id = try envelopeIdentifier("id", in: object, id: nil)
        let ref = try envelopeIdentifier("ref", in: object, id: id)
        guard let typeValue = object["type"] else { throw SignalingError(.malformedRequest, "missing field \"type\"", id: id) }
        guard case .string(let typeName) = typeValue else {
            throw SignalingError(.malformedRequest, "\"type\" must be a string", id: id)
        }
        guard let type = SignalingMessageType(rawValue: typeName) else {
            throw SignalingError(.malformedRequest, "unknown message type", id: id)
        }
        let fields = SignalingFieldReader(object: object, type: typeName, id: id)
        return SignalingEnvelope(id: id, ref: ref, message: try message(type, fields))
    }

    /// Decodes a message received from `sender`, refusing (31100) a type that side may not send:
    /// a server decodes client input with `sentBy: .client`, a client server input with `.server`.
    public static func decode(_ bytes: some Collection<UInt8>, sentBy sender: SignalingSender) throws(SignalingError) -> SignalingEnvelope {
        let envelope = try decode(bytes)
        let allowed = envelope.message.sender
        guard allowed == .either || allowed == sender || sender == .either else {
            throw SignalingError(.malformedRequest, "\(envelope.message.type.rawValue) is not sent by the \(sender == .client ? "client" : "server")",
                                 id: envelope.id)
        }
        return envelope
    }

    /// `decode(_:sentBy:)` for a text message.
    public static func decode(_ text: String, sentBy sender: SignalingSender) throws(SignalingError) -> SignalingEnvelope {
        try decode(text.utf8, sentBy: sender)
    }

    /// Encodes a message as compact JSON: `type`, then `id` and `ref`, then the payload's fields.
    public static func encode(_ envelope: SignalingEnvelope) -> String {
        String(decoding: encodeUTF8(envelope), as: UTF8.self)
    }

    /// `encode` as UTF-8 bytes, ready for a WebSocket text frame.
    public static func encodeUTF8(_ envelope: SignalingEnvelope) -> [UInt8] {
        var object = JSONObject()
        object["type"] = .string(envelope.message.type.rawValue)
        if let id = envelope.id { object["id"] = .string(id) }
        if let ref = envelope.ref { object["ref"] = .string(ref) }
        write(envelope.message, into: &object)
        return JSONValue.object(object).serialized()
    }

    /// `id` and `ref`: optional identifiers. A bad `id` is reported without an id (it is unreadable).
    private static func envelopeIdentifier(_ key: String, in object: JSONObject, id: String?) throws(SignalingError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard case .string(let string) = value else { throw SignalingError(.malformedRequest, "\"\(key)\" must be a string", id: id) }
        try SignalingFieldReader.check(string, .identifier, limit: SignalingLimits.maxIdentifierBytes) { (reason: String) in
            SignalingError(.badRequest, "\"\(key)\" \(reason)", id: id)
        }
        return string
    }

    private static func message(_ type: SignalingMessageType, _ fields: SignalingFieldReader) throws(SignalingError) -> SignalingMessage {
        switch type {
        case .hello: return .hello(try Hello(reading: fields))
        case .listen: return .listen
        case .unlisten: return .unlisten
        case .invite: return .invite(try Invite(reading: fields))
        case .accept: return .accept(try Accept(reading: fields))
        case .reject: return .reject(try Reject(reading: fields))
        case .cancel: return .cancel(try CallReference(reading: fields, requiringSid: false))
        case .hangup: return .hangup(try Hangup(reading: fields))
        case .hold: return .hold(try Hold(reading: fields))
        case .dtmf: return .dtmf(try DTMF(reading: fields))
        case .message: return .message(try CallMessage(reading: fields))
        case .iceRestart: return .iceRestart(try IceRestart(reading: fields))
        case .ping: return .ping
        case .pong: return .pong
        case .welcome: return .welcome(try Welcome(reading: fields))
        case .listening: return .listening
        case .callCreated: return .callCreated(try CallCreated(reading: fields))
        case .ringing: return .ringing(try CallReference(reading: fields, requiringSid: true))
        case .answer: return .answer(try Answer(reading: fields))
        case .connected: return .connected(try CallReference(reading: fields, requiringSid: true))
        case .incoming: return .incoming(try Incoming(reading: fields))
        case .cancelled: return .cancelled(try Cancelled(reading: fields))
        case .messageSent: return .messageSent(try MessageAck(reading: fields))
        case .messageFailed: return .messageFailed(try MessageFailure(reading: fields))
        case .resumed: return .resumed(try Resumed(reading: fields))
        case .error: return .error(try SignalingErrorBody(reading: fields))
        case .roomJoin: return .roomJoin(try RoomJoin(reading: fields))
        case .roomOffer: return .roomOffer(try RoomOffer(reading: fields))
        case .roomTrackEnabled: return .roomTrackEnabled(try RoomTrackEnabled(reading: fields))
        case .roomSubscribe: return .roomSubscribe(try RoomTrackReference(reading: fields))
        case .roomUnsubscribe: return .roomUnsubscribe(try RoomTrackReference(reading: fields))
        case .roomLeave: return .roomLeave
        case .roomJoined: return .roomJoined(try RoomJoined(reading: fields))
        case .roomAnswer: return .roomAnswer(try RoomAnswer(reading: fields))
        case .roomRenegotiate: return .roomRenegotiate(try RoomRenegotiate(reading: fields))
        case .roomParticipantConnected: return .roomParticipantConnected(try RoomParticipantConnected(reading: fields))
        case .roomParticipantDisconnected: return .roomParticipantDisconnected(try RoomParticipantReference(reading: fields))
        case .roomParticipantReconnecting: return .roomParticipantReconnecting(try RoomParticipantReference(reading: fields))
        case .roomParticipantReconnected: return .roomParticipantReconnected(try RoomParticipantReference(reading: fields))
        case .roomTrackPublished: return .roomTrackPublished(try RoomTrackPublished(reading: fields))
        case .roomTrackUnpublished: return .roomTrackUnpublished(try RoomTrackUnpublished(reading: fields))
        case .roomTrackChanged: return .roomTrackChanged(try RoomTrackChanged(reading: fields))
        case .roomSubscribed: return .roomSubscribed(try RoomSubscribed(reading: fields))
        case .roomUnsubscribed: return .roomUnsubscribed(try RoomTrackReference(reading: fields))
        case .roomSubscriptionFailed: return .roomSubscriptionFailed(try RoomSubscriptionFailed(reading: fields))
        case .roomTrackSwitchedOff: return .roomTrackSwitchedOff(try RoomTrackReference(reading: fields))
        case .roomTrackSwitchedOn: return .roomTrackSwitchedOn(try RoomTrackReference(reading: fields))
        case .roomDominantSpeaker: return .roomDominantSpeaker(try RoomDominantSpeaker(reading: fields))
        case .roomNetworkQuality: return .roomNetworkQuality(try RoomNetworkQuality(reading: fields))
        case .roomRecording: return .roomRecording(try RoomRecording(reading: fields))
        case .roomDisconnected: return .roomDisconnected(try RoomDisconnected(reading: fields))
        case .roomPeerOffer: return .roomPeerOffer(try RoomPeerDescription(reading: fields))
        case .roomPeerAnswer: return .roomPeerAnswer(try RoomPeerDescription(reading: fields))
        case .roomPeerCandidate: return .roomPeerCandidate(try RoomPeerCandidate(reading: fields))
        }
    }

    private static func write(_ message: SignalingMessage, into object: inout JSONObject) {
        switch message {
        case .listen, .unlisten, .ping, .pong, .listening, .roomLeave: break
        case .hello(let p): p.write(into: &object)
        case .invite(let p): p.write(into: &object)
        case .accept(let p): p.write(into: &object)
        case .reject(let p): p.write(into: &object)
        case .cancel(let p), .ringing(let p), .connected(let p): p.write(into: &object)
        case .hangup(let p): p.write(into: &object)
        case .hold(let p): p.write(into: &object)
        case .dtmf(let p): p.write(into: &object)
        case .message(let p): p.write(into: &object)
        case .iceRestart(let p): p.write(into: &object)
        case .welcome(let p): p.write(into: &object)
        case .callCreated(let p): p.write(into: &object)
        case .answer(let p): p.write(into: &object)
        case .incoming(let p): p.write(into: &object)
        case .cancelled(let p): p.write(into: &object)
        case .messageSent(let p): p.write(into: &object)
        case .messageFailed(let p): p.write(into: &object)
        case .resumed(let p): p.write(into: &object)
        case .error(let p): p.write(into: &object)
        case .roomJoin(let p): p.write(into: &object)
        case .roomOffer(let p): p.write(into: &object)
        case .roomTrackEnabled(let p): p.write(into: &object)
        case .roomSubscribe(let p), .roomUnsubscribe(let p), .roomUnsubscribed(let p), .roomTrackSwitchedOff(let p), .roomTrackSwitchedOn(let p): p.write(into: &object)
        case .roomJoined(let p): p.write(into: &object)
        case .roomAnswer(let p): p.write(into: &object)
        case .roomRenegotiate(let p): p.write(into: &object)
        case .roomParticipantConnected(let p): p.write(into: &object)
        case .roomParticipantDisconnected(let p), .roomParticipantReconnecting(let p), .roomParticipantReconnected(let p): p.write(into: &object)
        case .roomTrackPublished(let p): p.write(into: &object)
        case .roomTrackUnpublished(let p): p.write(into: &object)
        case .roomTrackChanged(let p): p.write(into: &object)
        case .roomSubscribed(let p): p.write(into: &object)
        case .roomSubscriptionFailed(let p): p.write(into: &object)
        case .roomDominantSpeaker(let p): p.write(into: &object)
        case .roomNetworkQuality(let p): p.write(into: &object)
        case .roomRecording(let p): p.write(into: &object)
        case .roomDisconnected(let p): p.write(into: &object)
        case .roomPeerOffer(let p), .roomPeerAnswer(let p): p.write(into: &object)
        case .roomPeerCandidate(let p): p.write(into: &object)
        }
    }
}

extension JSONObject {
    /// Sets a string member when the value is present.
    mutating func set(_ key: String, _ value: String?) {
        if let value { self[key] = .string(value) }
    }

    /// Sets an integer member when the value is present.
    mutating func set(_ key: String, _ value: Int?) {
        if let value { self[key] = .integer(Int64(value)) }
    }

    /// Sets a `{String: String}` member, names sorted so the text is stable; omitted when empty.
    mutating func set(_ key: String, params: [String: String]) {
        guard !params.isEmpty else { return }
        var inner = JSONObject()
        for name in params.keys.sorted() { inner[name] = params[name].map(JSONValue.string) }
        self[key] = .object(inner)
    }
}

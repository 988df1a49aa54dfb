import JSONWire
import ParleyCore

// JSON fields of the client payloads (docs/signaling.md, "Messages").

extension Hello {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(v: try f.int("v", in: 1...Int(Int32.max)),
                  token: try f.string("token", limit: SignalingLimits.maxTokenBytes),
                  resume: try f.optionalString("resume"),
                  client: try f.optionalString("client"))
    }

    func write(into o: inout JSONObject) {
        o.set("v", v)
        o.set("token", token)
        o.set("resume", resume)
        o.set("client", client)
    }
}

extension Invite {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callId: try f.string("callId"),
                  to: try f.optionalString("to", .identifierOrEmpty, code: .addressIncomplete),
                  params: try f.params("params"),
                  sdp: try f.string("sdp", .nonEmptyText, limit: SignalingLimits.maxSDPBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callId", callId)
        o.set("to", to)
        o.set("params", params: params)
        o.set("sdp", sdp)
    }
}

extension Accept {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"), sdp: try f.string("sdp", .nonEmptyText, limit: SignalingLimits.maxSDPBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("sdp", sdp)
    }
}

extension Reject {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        let callSid = try f.string("callSid")
        guard let name = try f.optionalString("reason") else {
            self.init(callSid: callSid)
            return
        }
        guard let reason = RejectReason(rawValue: name) else { throw f.bad("\"reason\" must be \"rejected\" or \"busy\"") }
        self.init(callSid: callSid, reason: reason)
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("reason", reason.rawValue)
    }
}

extension CallReference {
    /// `cancel` names the call by `callSid` or `callId` (at least one); `ringing` and `connected` by `callSid`.
    init(reading f: SignalingFieldReader, requiringSid: Bool) throws(SignalingError) {
        let callSid = try f.optionalString("callSid")
        let callId = try f.optionalString("callId")
        if requiringSid, callSid == nil { throw f.malformed("missing field \"callSid\"") }
        if callSid == nil, callId == nil { throw f.malformed("missing field \"callSid\" or \"callId\"") }
        self.init(callSid: callSid, callId: callId)
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("callId", callId)
    }
}

extension Hangup {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"),
                  code: try f.optionalInt("code"),
                  reason: try f.optionalString("reason", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("code", code)
        o.set("reason", reason)
    }
}

extension Hold {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"), hold: try f.bool("hold"))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o["hold"] = .bool(hold)
    }
}

extension DTMF {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        let digits = try f.string("digits", limit: SignalingLimits.maxDigits)
        guard digits.allSatisfy(DTMF.allowedCharacters.contains) else {
            throw f.bad("\"digits\" may hold only 0-9 * # A-D and w")
        }
        self.init(callSid: try f.string("callSid"), digits: digits)
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("digits", digits)
    }
}

extension CallMessage {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"),
                  messageId: try f.string("messageId"),
                  contentType: try f.string("contentType"),
                  messageType: try f.string("messageType"),
                  body: try f.string("body", .text, limit: SignalingLimits.maxBodyBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("messageId", messageId)
        o.set("contentType", contentType)
        o.set("messageType", messageType)
        o.set("body", body)
    }
}

extension IceRestart {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"), sdp: try f.string("sdp", .nonEmptyText, limit: SignalingLimits.maxSDPBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("sdp", sdp)
    }
}

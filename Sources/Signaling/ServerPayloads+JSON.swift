import JSONWire

// JSON fields of the server payloads (docs/signaling.md, "Messages").

extension Welcome {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(v: try f.int("v", in: 1...Int(Int32.max)),
                  session: try f.string("session"),
                  identity: try f.string("identity"),
                  resumeWindow: try f.int("resumeWindow", in: 0...3600),
                  heartbeat: try f.int("heartbeat", in: 1...3600))
    }

    func write(into o: inout JSONObject) {
        o.set("v", v)
        o.set("session", session)
        o.set("identity", identity)
        o.set("resumeWindow", resumeWindow)
        o.set("heartbeat", heartbeat)
    }
}

extension CallCreated {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callId: try f.string("callId"), callSid: try f.string("callSid"))
    }

    func write(into o: inout JSONObject) {
        o.set("callId", callId)
        o.set("callSid", callSid)
    }
}

extension Answer {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"), sdp: try f.string("sdp", .nonEmptyText, limit: SignalingLimits.maxSDPBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("sdp", sdp)
    }
}

extension Incoming {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        var callerInfo: CallerInfo?
        if let info = try f.optionalObject("callerInfo") {
            callerInfo = CallerInfo(isVerified: try info.optionalBool("isVerified"))
        }
        self.init(callSid: try f.string("callSid"),
                  from: try f.string("from", .identifierOrEmpty),
                  to: try f.string("to", .identifierOrEmpty),
                  params: try f.params("params"),
                  callerInfo: callerInfo)
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("from", from)
        o.set("to", to)
        o.set("params", params: params)
        if let callerInfo {
            var info = JSONObject()
            if let isVerified = callerInfo.isVerified { info["isVerified"] = .bool(isVerified) }
            o["callerInfo"] = .object(info)
        }
    }
}

extension Cancelled {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"),
                  code: try f.int("code"),
                  reason: try f.string("reason", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("code", code)
        o.set("reason", reason)
    }
}

extension MessageAck {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"), messageId: try f.string("messageId"))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("messageId", messageId)
    }
}

extension MessageFailure {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(callSid: try f.string("callSid"),
                  messageId: try f.string("messageId"),
                  code: try f.int("code"),
                  reason: try f.string("reason", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("callSid", callSid)
        o.set("messageId", messageId)
        o.set("code", code)
        o.set("reason", reason)
    }
}

extension Resumed {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(session: try f.string("session"),
                  calls: try f.identifierArray("calls", limit: SignalingLimits.maxResumedCalls))
    }

    func write(into o: inout JSONObject) {
        o.set("session", session)
        o["calls"] = .array(calls.map(JSONValue.string))
    }
}

extension SignalingErrorBody {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(code: try f.int("code"), message: try f.string("message", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("code", code)
        o.set("message", message)
    }
}

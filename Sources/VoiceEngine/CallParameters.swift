import ParleyStore

/// The parameters Twilio sends with every webhook request of a call (TwiML fetches and status
/// callbacks), in Twilio's names.
enum CallParameters {
    static let apiVersion = "2010-04-01"

    /// AccountSid, ApplicationSid, ApiVersion, CallSid, CallStatus, Called, Caller, Direction, From,
    /// To, ParentCallSid (child legs), then the call's custom parameters.
    static func standard(_ leg: CallLeg) -> [(String, String)] {
        standard(leg.record, customParameters: leg.customParameters)
    }

    static func standard(_ r: CallRecord, customParameters: [(String, String)]) -> [(String, String)] {
        var p: [(String, String)] = [("AccountSid", r.accountSid)]
        if let app = r.applicationSid { p.append(("ApplicationSid", app)) }
        p += [("ApiVersion", apiVersion), ("CallSid", r.sid), ("CallStatus", r.status.rawValue),
              ("Called", r.to), ("Caller", r.from), ("Direction", r.direction), ("From", r.from), ("To", r.to)]
        if let parent = r.parentCallSid { p.append(("ParentCallSid", parent)) }
        let reserved = Set(p.map(\.0))
        p += customParameters.filter { !reserved.contains($0.0) }
        return p
    }

    /// A status callback's parameters: the standard ones plus the event's.
    static func statusCallback(_ leg: CallLeg, timestamp: String) -> [(String, String)] {
        statusCallback(leg.record, customParameters: leg.customParameters, sequence: leg.callbackSequence, timestamp: timestamp)
    }

    /// A status callback's parameters for a call with no live leg (one settled after a crash).
    static func statusCallback(_ record: CallRecord, customParameters: [(String, String)], sequence: Int,
                               timestamp: String) -> [(String, String)] {
        var p = standard(record, customParameters: customParameters)
        p.append(("CallbackSource", "call-progress-events"))
        p.append(("SequenceNumber", String(sequence)))
        p.append(("Timestamp", timestamp))
        if let duration = record.duration, record.status.isFinal {
            p.append(("CallDuration", String(duration)))
            p.append(("Duration", String((duration + 59) / 60)))
        }
        if let code = record.errorCode { p.append(("ErrorCode", String(code))) }
        if let message = record.errorMessage { p.append(("ErrorMessage", message)) }
        return p
    }
}

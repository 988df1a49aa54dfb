import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import ParleyStore
import PlatformCore
import TwiML

/// `POST Calls.json`: a call to a client identity, with its TwiML from `Url`, `Twiml` or
/// `ApplicationSid` (in that order of precedence, as the vendor's).
extension TwilioRESTRouter {
    /// The vendor's cap on inline `Twiml` (error 32018 beyond it).
    static let maxInlineTwiMLCharacters = 4000
    /// The vendor's `Timeout` range and default, in seconds.
    static let callTimeoutRange = 1...600
    static let defaultCallTimeout = 60
    static let statusCallbackEventNames: Set<String> = ["initiated", "ringing", "answered", "completed"]

    func createCall(_ context: Context) async throws(RESTFailure) -> HTTPResponse {
        let request = try outboundRequest(context)
        guard let calls else { throw .invalidCallState("this server has no call engine to place calls") }
        let record: CallRecord
        do { record = try await calls.createCall(request) } catch {
            // No route takes `To` (a number without a trunk, a SIP gateway that is not running).
            if error.code == .notFound {
                throw RESTFailure(status: 400, code: .invalidTo, message: "The 'To' \(request.to) cannot be reached: \(error.failureReason ?? "no route")")
            }
            Log.error(.platform, "REST call create failed: \(error)")
            throw RESTFailure(status: 500, code: .restInternalServer, message: "Internal server error")
        }
        return Self.json(try callsJSON([record])[0], status: 201)
    }

    private func outboundRequest(_ context: Context) throws(RESTFailure) -> OutboundCallRequest {
        let p = context.parameters
        guard let to = p["To"]?.trimmingCharacters(in: .whitespaces), !to.isEmpty else {
            throw RESTFailure(status: 400, code: .toMissing, message: "No 'To' number is specified")
        }
        guard let from = p["From"]?.trimmingCharacters(in: .whitespaces), !from.isEmpty else {
            throw RESTFailure(status: 400, code: .fromMissing, message: "No 'From' number is specified")
        }
        guard Self.isCallable(to) else {
            throw RESTFailure(status: 400, code: .invalidTo,
                              message: "The 'To' \(to) is not a client:NAME, a sip: URI or a phone number")
        }
        var applicationSid: String?
        var statusCallback = try Self.url(p, "StatusCallback")
        var statusCallbackMethod = try Self.method(p, "StatusCallbackMethod", fallback: "POST")
        let instructions: OutboundCallRequest.Instructions
        if let url = try Self.callURL(p) {
            instructions = .url(url, method: try Self.method(p, "Method", fallback: "POST"))
        } else if let document = try Self.twiml(p) {
            instructions = .twiml(document)
        } else if let sid = p["ApplicationSid"], !sid.isEmpty {
            guard let app = try storeCall({ () throws(StoreError) in try store.application(sid: sid) }),
                  app.accountSid == context.account.sid else {
                throw RESTFailure(status: 400, code: .applicationNotFound, message: "ApplicationSid \(sid) is not an application of this account")
            }
            guard let url = app.voiceURL, !url.isEmpty else {
                throw RESTFailure(status: 400, code: .invalidCallURL, message: "Application \(sid) has no VoiceUrl")
            }
            applicationSid = app.sid
            instructions = .url(url, method: app.voiceMethod)
            if statusCallback == nil, let appCallback = app.statusCallback {
                statusCallback = appCallback
                statusCallbackMethod = app.statusCallbackMethod
            }
        } else {
            throw RESTFailure(status: 400, code: .invalidCallURL, message: "Url, Twiml or ApplicationSid is required")
        }
        var request = OutboundCallRequest(accountSid: context.account.sid, to: to, from: from, instructions: instructions,
                                          applicationSid: applicationSid, statusCallback: statusCallback,
                                          statusCallbackMethod: statusCallbackMethod,
                                          statusCallbackEvents: try Self.statusCallbackEvents(p), timeout: try Self.callTimeout(p))
        request.sendDigits = try Self.sendDigits(p)
        request.trunk = p["Byoc"].flatMap { $0.isEmpty ? nil : $0 }
        return request
    }

    /// `SendDigits`: at most 32 of `0-9`, `*`, `#`, `w`, `W` (the vendor's bound); 20001 otherwise.
    private static func sendDigits(_ p: RESTParameters) throws(RESTFailure) -> String? {
        guard let keys = p["SendDigits"], !keys.isEmpty else { return nil }
        guard keys.count <= 32, keys.allSatisfy({ "0123456789*#wW".contains($0) }) else {
            throw .invalidParameter("SendDigits \(keys) is not up to 32 of 0-9, *, #, w and W")
        }
        return keys
    }

    /// `To` as the vendor takes it: `client:NAME`, a `sip:`/`sips:` URI, or a phone number (digits
    /// with an optional leading `+` and the usual separators). Whether anything reaches it is the engine's.
    static func isCallable(_ to: String) -> Bool {
        guard to.utf8.count <= 512 else { return false }
        if to.hasPrefix("client:") { return to.count > "client:".count && to.utf8.count <= 256 + "client:".count }
        let lower = to.lowercased()
        if lower.hasPrefix("sip:") || lower.hasPrefix("sips:") { return to.contains("@") || to.count > 5 }
        return PhoneNumber.isDialable(to)
    }

    /// `Url`, refused with 21205 (not 20001) when malformed, as the vendor's Calls resource does.
    private static func callURL(_ p: RESTParameters) throws(RESTFailure) -> String? {
        do { return try url(p, "Url") } catch {
            throw RESTFailure(status: 400, code: .invalidCallURL, message: error.message)
        }
    }

    /// `Twiml`, parsed with the TwiML reader: 32018 over 4000 characters, 12100 when not
    /// well-formed XML, 12200 when XML but not valid TwiML. Nil when absent or empty.
    static func twiml(_ p: RESTParameters) throws(RESTFailure) -> TwiMLResponse? {
        guard let text = p["Twiml"], !text.isEmpty else { return nil }
        guard text.count <= maxInlineTwiMLCharacters else {
            throw RESTFailure(status: 400, code: .twimlTooLarge,
                              message: "Twiml size exceeded maximum allowed value of \(maxInlineTwiMLCharacters) characters")
        }
        do { return try TwiMLResponse(parsing: text) } catch {
            throw RESTFailure(status: 400, code: ParleyError.Code(rawValue: error.twilioErrorCode), message: "Twiml is invalid: \(error)")
        }
    }

    /// `StatusCallbackEvent`, repeated or space-separated; empty means `completed` only.
    private static func statusCallbackEvents(_ p: RESTParameters) throws(RESTFailure) -> [String] {
        var events: [String] = []
        for value in p.values("StatusCallbackEvent") {
            for event in value.split(separator: " ").map(String.init) where !events.contains(event) {
                guard statusCallbackEventNames.contains(event) else {
                    throw .invalidParameter("StatusCallbackEvent must be initiated, ringing, answered or completed, got \(event)")
                }
                events.append(event)
            }
        }
        return events
    }

    private static func callTimeout(_ p: RESTParameters) throws(RESTFailure) -> Int {
        guard let text = p["Timeout"], !text.isEmpty else { return defaultCallTimeout }
        guard let seconds = Int(text), callTimeoutRange.contains(seconds) else {
            throw .invalidParameter("Timeout must be a number of seconds from 1 to 600, got \(text)")
        }
        return seconds
    }
}

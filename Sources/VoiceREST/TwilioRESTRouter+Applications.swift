import AccessToken
import HTTPWire
import ParleyStore
import PlatformCore

/// `Applications.json` and `Applications/{AP}.json`.
extension TwilioRESTRouter {
    func listOrCreateApplications(_ context: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let accountSid = context.account.sid
        if context.method == "POST" {
            let p = context.parameters
            let draft = ApplicationDraft(friendlyName: p["FriendlyName"] ?? "", voiceURL: try Self.url(p, "VoiceUrl"),
                                         voiceMethod: try Self.method(p, "VoiceMethod", fallback: "POST"),
                                         statusCallback: try Self.url(p, "StatusCallback"),
                                         statusCallbackMethod: try Self.method(p, "StatusCallbackMethod", fallback: "POST"))
            try Self.checkFriendlyName(draft.friendlyName)
            let created = try storeCall { () throws(StoreError) in try store.createApplication(draft, accountSid: accountSid) }
            return Self.json(RESTResourceJSON.application(created), status: 201)
        }
        let paging = try RESTPaging(context.parameters)
        let name = context.parameters["FriendlyName"]
        let all = try storeCall { () throws(StoreError) in try store.applications(accountSid: accountSid, friendlyName: name) }
        let page = paging.slice(all)
        let filters: [(String, String)] = name.map { [("FriendlyName", $0)] } ?? []
        return Self.json(paging.envelope(key: "applications", records: page.records.map(RESTResourceJSON.application),
                                         hasMore: page.hasMore, path: context.path, filters: filters))
    }

    func application(_ context: Context, sid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST, DELETE")
        guard var application = try storeCall({ () throws(StoreError) in try store.application(sid: sid) }),
              application.accountSid == context.account.sid else { throw .notFound(context.path) }
        switch context.method {
        case "POST":
            let p = context.parameters
            if let name = p["FriendlyName"] {
                try Self.checkFriendlyName(name)
                application.friendlyName = name
            }
            if p.contains("VoiceUrl") { application.voiceURL = try Self.url(p, "VoiceUrl") }
            application.voiceMethod = try Self.method(p, "VoiceMethod", fallback: application.voiceMethod)
            if p.contains("StatusCallback") { application.statusCallback = try Self.url(p, "StatusCallback") }
            application.statusCallbackMethod = try Self.method(p, "StatusCallbackMethod",
                                                               fallback: application.statusCallbackMethod)
            let edited = application
            let updated = try updateOrNotFound(edited, path: context.path)
            return Self.json(RESTResourceJSON.application(updated))
        case "DELETE":
            guard try storeCall({ () throws(StoreError) in try store.deleteApplication(sid: sid) }) else {
                throw .notFound(context.path)
            }
            return .status(204)
        default:
            return Self.json(RESTResourceJSON.application(application))
        }
    }

    private func updateOrNotFound(_ application: Application, path: String) throws(RESTFailure) -> Application {
        do {
            return try store.updateApplication(application)
        } catch .notFound {
            throw .notFound(path)  // deleted meanwhile
        } catch {
            throw .store(error)
        }
    }

    /// The vendor caps friendly names at 64 characters.
    static func checkFriendlyName(_ name: String) throws(RESTFailure) {
        guard name.count <= 64 else { throw .invalidParameter("FriendlyName is longer than 64 characters") }
    }
}

import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import PlatformCore
import ParleyStore

/// Push bindings for incoming calls, what the SDK's `register`/`unregister` call:
///
/// - `POST /v1/registrations` with `Authorization: Bearer <JWT>` and a JSON body
///   `{"device_token": "<hex>", "provider": "apns" | "webhook"}` (provider defaults to `apns`):
///   binds the token's identity to the device for one year → 201 with the binding.
///   Registering the same device again renews it (200).
/// - `DELETE /v1/registrations/<device token>`: removes it → 204 (404 when unknown).
///
/// The token needs a voice grant with `incoming.allow` (else 403 with 31403).
package struct PushRegistrationEndpoint: APIEndpoint {
    static let collection = "/v1/registrations"
    let store: any PlatformStore
    let providers: Set<String>

    package init(store: any PlatformStore, providers: Set<String>) {
        self.store = store
        self.providers = providers
    }

    static func matches(_ path: String) -> Bool { path == collection || path.hasPrefix(collection + "/") }
    package func matches(_ path: String) -> Bool { Self.matches(path) }

    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        do { token = try router.authenticate(request) } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        guard token.voice?.incomingAllow == true else {
            return APIErrorResponse.make(ParleyError(.forbidden, reason: "the access token does not allow incoming calls"),
                                         status: 403)
        }
        let path = request.path
        switch (request.method, path == Self.collection) {
        case ("POST", true): return register(request, token: token)
        case ("DELETE", false): return unregister(String(path.dropFirst(Self.collection.count + 1)), token: token)
        default:
            var response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(request.method) not allowed"),
                                                 status: 405)
            response.headers.set("Allow", path == Self.collection ? "POST" : "DELETE")
            return response
        }
    }

    private func register(_ request: HTTPRequest, token: VerifiedToken) -> HTTPResponse {
        guard let json = try? JSONValue.parse(request.body).objectValue,
              let device = json["device_token"]?.stringValue, Self.isDeviceToken(device) else {
            return APIErrorResponse.make(ParleyError(.badRequest, reason: "send {\"device_token\": \"<1-512 printable characters>\"}"),
                                         status: 400)
        }
        let provider = json["provider"]?.stringValue ?? "apns"
        guard providers.contains(provider) else {
            let known = providers.sorted().joined(separator: ", ")
            return APIErrorResponse.make(ParleyError(.badRequest, reason: "provider \(provider) is not configured (configured: \(known.isEmpty ? "none" : known))"),
                                         status: 400)
        }
        let now = Int64(Date().timeIntervalSince1970)
        do {
            let existing = try store.bindings(accountSid: token.accountSid, identity: token.identity, now: now)
                .contains { $0.deviceToken == device }
            let binding = try store.upsertBinding(PushBinding(sid: SID.make("BS"), accountSid: token.accountSid,
                                                              identity: token.identity, provider: provider,
                                                              deviceToken: device, createdAt: now,
                                                              expiresAt: now + PushBinding.timeToLive))
            let body: JSONObject = ["sid": .string(binding.sid), "identity": .string(binding.identity),
                                    "provider": .string(binding.provider), "expires": .integer(binding.expiresAt)]
            return .json(JSONValue.object(body).serialized(), status: existing ? 200 : 201)
        } catch {
            return APIErrorResponse.make(ParleyError(.internalServer, reason: "cannot store the binding: \(error)"), status: 500)
        }
    }

    private func unregister(_ device: String, token: VerifiedToken) -> HTTPResponse {
        do {
            guard try store.deleteBinding(accountSid: token.accountSid, identity: token.identity, deviceToken: device) else {
                return APIErrorResponse.make(ParleyError(.notFound, reason: "no binding for that device"), status: 404)
            }
            return HTTPResponse(status: 204)
        } catch {
            return APIErrorResponse.make(ParleyError(.internalServer, reason: "cannot delete the binding: \(error)"), status: 500)
        }
    }

    static func isDeviceToken(_ token: String) -> Bool {
        (1...512).contains(token.utf8.count) && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }
    }
}

import JSONWire
import ParleyStore

/// An endpoint in Plivo's JSON shape, with the fields the `plivo` library's `Endpoint` reads. The
/// password (which Plivo shows hashed) is left out: secrets are never returned after creation.
/// `sip_registered` is "false" until the registrar reports bindings.
enum PlivoEndpointJSON {
    static func endpoint(_ e: SIPEndpoint, authID: String, settings: SIPCredentialSettings) -> JSONValue {
        let base = "\(PlivoEndpointRouter.root)\(authID)"
        return .object([
            "alias": .string(e.alias),
            "application": e.applicationSid.map { .string("\(base)/Application/\($0)/") } ?? .null,
            "endpoint_id": .string(e.id),
            "resource_uri": .string("\(base)/Endpoint/\(e.id)/"),
            "sip_registered": .string("false"),
            "sip_uri": .string("sip:\(e.username)@\(settings.sipHost)"),
            "sub_account": .null,
            "username": .string(e.username),
        ])
    }
}

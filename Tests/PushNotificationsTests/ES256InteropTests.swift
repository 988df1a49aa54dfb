import Foundation
import JSONWire
import ParleyCrypto
import ParleyTestSupport
import PushNotifications
import Testing

/// ES256 against Python's `cryptography`: it verifies our raw `r || s` signatures and signs with our
/// PKCS#8 key for us to verify; PyJWT verifies a provider token.
@Suite(.tags(.interop)) struct ES256InteropTests {
    static let script = """
    import json, sys
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
    import jwt
    args = json.load(sys.stdin)
    key = serialization.load_pem_private_key(args["private"].encode(), password=None)
    public = serialization.load_pem_public_key(args["public"].encode())
    assert key.public_key().public_numbers() == public.public_numbers()
    message = args["message"].encode()
    sig = bytes.fromhex(args["signature"])
    try:
        public.verify(encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")),
                      message, ec.ECDSA(hashes.SHA256()))
        ours_ok = True
    except Exception:
        ours_ok = False
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    claims = jwt.decode(args["jwt"], args["public"], algorithms=["ES256"], options={"verify_iat": False})
    print(json.dumps({"ours_ok": ours_ok, "theirs": (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex(),
                      "curve": key.curve.name, "jwt_claims": claims, "jwt_header": jwt.get_unverified_header(args["jwt"])}))
    """

    @Test func signaturesAndTokensInteroperate() async throws {
        let key = try P256SigningKey.generate()
        let message = "ES256 interop \u{1F4DE}"
        let signature = try key.signature(for: Array(message.utf8))
        let jwt = try APNsProviderToken.sign(key: key, keyID: "KEY1234567", teamID: "TEAM123456", issuedAt: 1_700_000_000)
        let input: JSONObject = ["private": .string(key.pkcs8PEM), "public": .string(key.verifyingKey.pem),
                                 "message": .string(message), "signature": .string(Hex.encode(signature)), "jwt": .string(jwt)]
        let result = try await run(try venvPython(), ["-c", Self.script],
                                   stdin: String(decoding: JSONValue.object(input).serialized(), as: UTF8.self))
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue)
        #expect(output["ours_ok"] == .bool(true))
        #expect(output["curve"] == .string("secp256r1"))
        let theirs = try #require(output["theirs"]?.stringValue.flatMap(Hex.decode))
        #expect(key.verifyingKey.isValidSignature(theirs, for: Array(message.utf8)))
        #expect(!key.verifyingKey.isValidSignature(theirs, for: Array("another message".utf8)))
        #expect(output["jwt_claims"] == .object(["iss": .string("TEAM123456"), "iat": .integer(1_700_000_000)]))
        #expect(output["jwt_header"] == .object(["alg": .string("ES256"), "kid": .string("KEY1234567")]))
    }
}

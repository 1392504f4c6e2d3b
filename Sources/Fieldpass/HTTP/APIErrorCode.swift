/// The `error` codes of one area of the API. Every code an endpoint can answer is a case of
/// one of ``APIErrorCodes/areas``, and `openapi.json` lists exactly these (a test checks),
/// so the document and the code cannot drift.
protocol APIErrorCode: RawRepresentable<String>, CaseIterable, Sendable {}

enum APIErrorCodes {
    /// Every area's codes.
    static let areas: [any APIErrorCode.Type] = [
        HTTPErrorCode.self, AuthErrorCode.self, OAuthErrorCode.self, OnboardingErrorCode.self,
        DirectoryErrorCode.self, IntegrationErrorCode.self, BadgeErrorCode.self,
    ]

    /// Every code the API can answer.
    static var all: Set<String> {
        Set(areas.flatMap { area in area.allCodes })
    }
}

extension APIErrorCode {
    static var allCodes: [String] { allCases.map(\.rawValue) }
}

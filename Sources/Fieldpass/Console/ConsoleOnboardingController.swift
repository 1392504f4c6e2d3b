import FieldpassDomain
import Foundation
import Hummingbird

/// `GET /console/onboarding`: the last 24 hours of onboarding, from the store, and the people
/// who signed in and still wait for their realm's data.
struct ConsoleOnboardingController: Sendable {
    let store: any FieldpassStore
    let pages: ConsolePages

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("onboarding", use: show)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let summary = try await store.onboardingSummary(
            environmentID: context.visit.identity.environmentID, since: Date().addingTimeInterval(-86_400), waitingLimit: 100
        )
        let view = OnboardingView(
            chrome: pages.chrome("Onboarding", context, .onboarding),
            counts: OnboardingOutcome.allCases.map { Count(label: Self.label($0), count: summary.count($0)) },
            failures: summary.failures.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { Count(label: $0.key, count: $0.value) },
            waiting: summary.waitingForData.map { person in
                Waiting(id: person.user.id, email: ConsoleText(person.user.email), since: ConsolePages.time(person.signedInAt) ?? "")
            }
        )
        return pages.renderer.page("onboarding", view)
    }

    private static func label(_ outcome: OnboardingOutcome) -> String {
        switch outcome {
        case .registered: "Registered"
        case .confirmed: "Confirmed on the sign-in page"
        case .signedIn: "Signed in"
        case .dataReady: "Data ready"
        case .expired: "Expired"
        case .failed: "Failed"
        }
    }

    struct Count {
        let label: String
        let count: Int
    }

    struct Waiting {
        let id: String
        let email: ConsoleText
        let since: String
    }

    struct OnboardingView {
        let chrome: ConsoleChrome
        let counts: [Count]
        let failures: [Count]
        let waiting: [Waiting]
    }
}

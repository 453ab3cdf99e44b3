import CVips
import Foundation

enum EffectFilters {
    static let all: [FilterDefinition] = []
}

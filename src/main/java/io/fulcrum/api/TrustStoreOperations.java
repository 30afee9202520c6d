package io.fulcrum.api;

import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.TrustStore;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Trust stores (mutual TLS verify mode): DescribeTrustStores, DescribeTrustStoreAssociations,
 * DescribeTrustStoreRevocations and GetResourcePolicy (a trust store is shared with other accounts
 * by a resource policy; nothing is shared here, so a trust store has none).
 * Trust stores come from the config file's {@code trust-stores} (their CA bundles and revocation
 * lists are files; there is no S3 to read them from), so the operations that create, change or
 * delete one, or read its bundle back, are refused with {@code OperationNotPermitted}.
 */
final class TrustStoreOperations {

  /** What ELBv2 offers that needs S3: refused here. */
  private static final List<String> REFUSED = List.of("CreateTrustStore", "ModifyTrustStore", "DeleteTrustStore",
      "AddTrustStoreRevocations", "RemoveTrustStoreRevocations", "GetTrustStoreCaCertificatesBundle",
      "GetTrustStoreRevocationContent", "DeleteSharedTrustStoreAssociation");

  private TrustStoreOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeTrustStores", TrustStoreOperations::describe)
        .register("DescribeTrustStoreAssociations", TrustStoreOperations::associations)
        .register("DescribeTrustStoreRevocations", TrustStoreOperations::revocations)
        .register("GetResourcePolicy", TrustStoreOperations::resourcePolicy);
    for (String action : REFUSED) {
      api.register(action, (p, ctx) -> {
        throw ApiError.sender("OperationNotPermitted", action + " is not available: trust stores come from the"
            + " config file's trust-stores (CA bundles and revocation lists are files there; there is no S3)");
      });
    }
  }

  /**
   * The resource policy of a trust store this deployment has: none, as no trust store is shared
   * (the answer has no {@code Policy}). Any other ARN is {@code ResourceNotFound}.
   */
  static Future<List<Xml>> resourcePolicy(QueryParams p, ApiContext ctx) {
    String arn = p.required("ResourceArn");
    if (ctx.trustStores().stream().noneMatch(t -> t.arn().equals(arn))) {
      throw ApiError.sender("ResourceNotFound", "The specified resource does not exist: '" + arn + "' (resource"
          + " policies belong to trust stores, which this deployment has under trust-stores in its config file)");
    }
    return Future.succeededFuture(List.of());
  }

  /** A trust store this deployment knows by ARN. */
  static TrustStore trustStore(ApiContext ctx, String arn) {
    return ctx.trustStores().stream().filter(t -> t.arn().equals(arn)).findFirst()
        .orElseThrow(() -> LbResources.refusal("TrustStoreNotFound", "Trust store '" + arn + "' not found (this"
            + " deployment has those listed under trust-stores in its config file)"));
  }

  /**
   * Those named by {@code TrustStoreArns} or {@code Names} (an unknown one is
   * {@code TrustStoreNotFound}), or all; paged.
   */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    List<String> arns = p.strings("TrustStoreArns");
    List<String> names = p.strings("Names");
    if (!arns.isEmpty() && !names.isEmpty()) {
      throw ApiError.validation("Trust store ARNs and names cannot be specified at the same time");
    }
    List<TrustStore> selected = new ArrayList<>();
    if (!arns.isEmpty()) {
      new LinkedHashSet<>(arns).forEach(a -> selected.add(trustStore(ctx, a)));
    } else if (!names.isEmpty()) {
      for (String name : new LinkedHashSet<>(names)) {
        selected.add(ctx.trustStores().stream().filter(t -> t.name().equals(name)).findFirst()
            .orElseThrow(() -> ApiError.sender("TrustStoreNotFound", "Trust store '" + name + "' not found")));
      }
    } else {
      selected.addAll(ctx.trustStores());
    }
    MarkerPaging.Page<TrustStore> page = MarkerPaging.page(selected, p);
    return Future.succeededFuture(List.of(
        Xml.list("TrustStores", page.items(), t -> Xml.el("member")
            .add("Name", t.name())
            .add("TrustStoreArn", t.arn())
            .add("Status", "ACTIVE")
            .add("NumberOfCaCertificates", t.caCount())
            .add("TotalRevokedEntries", t.revokedCount())),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /**
   * A trust store's revocation lists: each file of its {@code revocations}, numbered from 1 in their
   * order as its {@code RevocationId}, with how many certificates it revokes; those of
   * {@code RevocationIds} (an unknown one is {@code RevocationIdNotFound}), or all; paged.
   */
  static Future<List<Xml>> revocations(QueryParams p, ApiContext ctx) {
    TrustStore store = trustStore(ctx, p.required("TrustStoreArn"));
    List<Integer> ids = new ArrayList<>();
    for (String id : new LinkedHashSet<>(p.strings("RevocationIds"))) {
      int n;
      try {
        n = Integer.parseInt(id);
      } catch (NumberFormatException e) {
        throw ApiError.validation("RevocationIds: '" + id + "' is not a revocation id (a number)");
      }
      if (n < 1 || n > store.revocationFiles().size()) {
        throw ApiError.sender("RevocationIdNotFound", "Revocation id " + id + " not found in trust store '"
            + store.name() + "'");
      }
      ids.add(n);
    }
    if (ids.isEmpty()) {
      for (int i = 1; i <= store.revocationFiles().size(); i++) {
        ids.add(i);
      }
    }
    MarkerPaging.Page<Integer> page = MarkerPaging.page(ids, p);
    return Future.succeededFuture(List.of(
        Xml.list("TrustStoreRevocations", page.items(), id -> Xml.el("member")
            .add("TrustStoreArn", store.arn())
            .add("RevocationId", id)
            .add("RevocationType", "CRL")
            .add("NumberOfRevokedEntries", id <= store.revokedPerList().size() ? store.revokedPerList().get(id - 1) : 0)),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /** The load balancers with a listener that verifies clients with the trust store; paged. */
  static Future<List<Xml>> associations(QueryParams p, ApiContext ctx) {
    TrustStore store = trustStore(ctx, p.required("TrustStoreArn"));
    List<String> using = new ArrayList<>();
    for (LoadBalancer lb : ctx.resources().loadBalancers()) {
      boolean uses = lb.listeners().stream().map(l -> l.mutualAuthentication())
          .anyMatch(m -> m.mode() == MutualAuthentication.Mode.VERIFY && m.trustStore().arn().equals(store.arn()));
      if (uses) {
        using.add(lb.arn());
      }
    }
    MarkerPaging.Page<String> page = MarkerPaging.page(using, p);
    return Future.succeededFuture(List.of(
        Xml.list("TrustStoreAssociations", page.items(), a -> Xml.el("member").add("ResourceArn", a)),
        Xml.text("NextMarker", page.nextMarker())));
  }
}

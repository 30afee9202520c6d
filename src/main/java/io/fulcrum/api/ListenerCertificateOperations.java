package io.fulcrum.api;

import io.fulcrum.model.Certificate;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The certificate list of an HTTPS listener: AddListenerCertificates, RemoveListenerCertificates,
 * DescribeListenerCertificates. The first certificate is the default one (changed with
 * ModifyListener); the others are chosen by SNI. Certificates are named by the ARNs this deployment
 * knows ({@link ApiContext#certificates()}).
 */
final class ListenerCertificateOperations {

  private ListenerCertificateOperations() {
  }

  static void register(ElbApi api) {
    api.register("AddListenerCertificates", ListenerCertificateOperations::add)
        .register("RemoveListenerCertificates", ListenerCertificateOperations::remove)
        .register("DescribeListenerCertificates", ListenerCertificateOperations::describe);
  }

  private static List<String> given(QueryParams p) {
    List<String> arns = new ArrayList<>();
    List<QueryParams> certs = p.structs("Certificates");
    for (int i = 0; i < certs.size(); i++) {
      String arn = certs.get(i).string("CertificateArn");
      if (arn == null || arn.isEmpty()) {
        throw ApiError.validation("Certificates.member." + (i + 1) + ": a CertificateArn is required");
      }
      arns.add(arn);
    }
    if (arns.isEmpty()) {
      throw ApiError.validation("At least one certificate must be specified");
    }
    return List.copyOf(new LinkedHashSet<>(arns));
  }

  private static Listener https(LbResources.ListenerRef ref) {
    if (!ref.listener().protocol().isTls()) {
      throw LbResources.refusal("ValidationError", "Certificates can be added only to HTTPS and TLS listeners");
    }
    return ref.listener();
  }

  /** Adds SNI certificates; one already on the listener is left where it is. */
  static Future<List<Xml>> add(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    List<String> arns = given(p);
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener l = https(ref);
      List<Certificate> certs = new ArrayList<>(l.certificates());
      for (String a : arns) {
        Certificate c = ListenerOperations.certificate(ctx, a);
        if (certs.stream().noneMatch(x -> x.arn().equals(a))) {
          certs.add(c);
        }
      }
      if (certs.size() > LoadBalancer.MAX_CERTIFICATES + 1) {
        throw LbResources.refusal("TooManyCertificates", "A listener can have at most " + LoadBalancer.MAX_CERTIFICATES
            + " certificates besides its default one");
      }
      Listener next = l.withCertificates(certs);
      return next.equals(l) ? r : LbResources.replace(r, ref.lb(), next);
    }).map(r -> List.of(Xml.list("Certificates", arns, a -> member(a, false))));
  }

  /** Removes SNI certificates; the default one cannot be removed (change it with ModifyListener). */
  static Future<List<Xml>> remove(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    List<String> arns = given(p);
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener l = https(ref);
      if (!l.certificates().isEmpty() && arns.contains(l.certificates().get(0).arn())) {
        throw LbResources.refusal("OperationNotPermitted", "The default certificate of a listener cannot be removed;"
            + " change it with ModifyListener");
      }
      List<Certificate> certs = new ArrayList<>(l.certificates());
      certs.removeIf(c -> arns.contains(c.arn()));
      Listener next = l.withCertificates(certs);
      return next.equals(l) ? r : LbResources.replace(r, ref.lb(), next);
    }).map(r -> List.of());
  }

  /** Every certificate of the listener, the default one marked {@code IsDefault}. */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    Listener l = LbResources.listener(ctx.resources(), arn).listener();
    List<Certificate> certs = l.certificates();
    List<String> arns = certs.stream().map(Certificate::arn).toList();
    MarkerPaging.Page<String> page = MarkerPaging.page(arns, p);
    String defaultArn = arns.isEmpty() ? null : arns.get(0);
    return Future.succeededFuture(List.of(
        Xml.list("Certificates", page.items(), a -> member(a, a.equals(defaultArn))),
        Xml.text("NextMarker", page.nextMarker())));
  }

  private static Xml member(String arn, boolean isDefault) {
    return Xml.el("member").add("CertificateArn", arn).add("IsDefault", isDefault);
  }
}

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
 * ModifyListener); the others, the certificate list, are chosen by SNI. The default certificate may
 * be in the list too, as on AWS, which then describes it twice (once as the default). Certificates
 * are named by the ARNs this deployment knows ({@link ApiContext#certificates()}).
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

  /** Adds certificates to the list; one already in it is left where it is. */
  static Future<List<Xml>> add(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    List<String> arns = given(p);
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener l = https(ref);
      List<Certificate> certs = new ArrayList<>(l.certificates());
      for (String a : arns) {
        Certificate c = ListenerOperations.certificate(ctx, a);
        if (list(certs).stream().noneMatch(x -> x.arn().equals(a))) {
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

  /**
   * Removes certificates from the list; the default one cannot be removed (change it with
   * ModifyListener), but when it is in the list too, it leaves the list and stays the default.
   */
  static Future<List<Xml>> remove(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    List<String> arns = given(p);
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener l = https(ref);
      List<Certificate> certs = l.certificates();
      if (!certs.isEmpty() && arns.contains(certs.get(0).arn())
          && list(certs).stream().noneMatch(c -> c.arn().equals(certs.get(0).arn()))) {
        throw LbResources.refusal("OperationNotPermitted", "The default certificate of a listener cannot be removed;"
            + " change it with ModifyListener");
      }
      List<Certificate> kept = new ArrayList<>();
      for (int i = 0; i < certs.size(); i++) {
        if (i == 0 || !arns.contains(certs.get(i).arn())) {
          kept.add(certs.get(i));
        }
      }
      Listener next = l.withCertificates(kept);
      return next.equals(l) ? r : LbResources.replace(r, ref.lb(), next);
    }).map(r -> List.of());
  }

  /** Every certificate of the listener: the default one marked {@code IsDefault}, then the list. */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    Listener l = LbResources.listener(ctx.resources(), arn).listener();
    List<Certificate> certs = l.certificates();
    List<Integer> places = java.util.stream.IntStream.range(0, certs.size()).boxed().toList();
    MarkerPaging.Page<Integer> page = MarkerPaging.page(places, p);
    return Future.succeededFuture(List.of(
        Xml.list("Certificates", page.items(), i -> member(certs.get(i).arn(), i == 0)),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /** The certificate list: what follows the default certificate. */
  private static List<Certificate> list(List<Certificate> certificates) {
    return certificates.isEmpty() ? certificates : certificates.subList(1, certificates.size());
  }

  private static Xml member(String arn, boolean isDefault) {
    return Xml.el("member").add("CertificateArn", arn).add("IsDefault", isDefault);
  }
}

package io.fulcrum.testing;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;

/**
 * The AWS SDK for Java v2's ELBv2 client pointed at a Fulcrum control plane: the real client,
 * with its own SigV4 signing, serialisation and error parsing.
 */
public final class ElbClients {

  /** The key pair API tests configure ({@link #CREDENTIALS_YAML}). */
  public static final String ACCESS_KEY = "AKIAFULCRUMTEST0001";
  public static final String SECRET_KEY = "fulcrum/test/secret/key/0000000000000000";

  /** The {@code credentials:} block for a test config. */
  public static final String CREDENTIALS_YAML =
      "credentials: {access-key-id: " + ACCESS_KEY + ", secret-access-key: " + SECRET_KEY + "}\n";

  private ElbClients() {
  }

  public static ElasticLoadBalancingV2Client client(int controlPort) {
    return client(controlPort, ACCESS_KEY, SECRET_KEY);
  }

  public static ElasticLoadBalancingV2Client client(int controlPort, String accessKey, String secretKey) {
    return client(controlPort, accessKey, secretKey, ClientOverrideConfiguration.builder());
  }

  /** A client whose requests {@code interceptor} may change before the SDK signs them. */
  public static ElasticLoadBalancingV2Client client(int controlPort, ExecutionInterceptor interceptor) {
    return client(controlPort, ACCESS_KEY, SECRET_KEY,
        ClientOverrideConfiguration.builder().addExecutionInterceptor(interceptor));
  }

  private static ElasticLoadBalancingV2Client client(int controlPort, String accessKey, String secretKey,
      ClientOverrideConfiguration.Builder overrides) {
    return ElasticLoadBalancingV2Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + controlPort))
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)).build())
        .overrideConfiguration(overrides.retryStrategy(b -> b.maxAttempts(1)).build())
        .build();
  }
}

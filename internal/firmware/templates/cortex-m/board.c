{{- define "systick" -}}
/* delay_ms counts SysTick (ARMv6-M/ARMv7-M architecture reference manual,
 * B3.3: SYST_CSR 0xE000E010, SYST_RVR 0xE000E014, SYST_CVR 0xE000E018) at
 * the processor clock, CPU_HZ (board.h). */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)

void delay_ms(unsigned ms)
{
	SYST_RVR = CPU_HZ / 1000u - 1u; /* one wrap a millisecond */
	SYST_CVR = 0;
	SYST_CSR = 5u; /* CLKSOURCE = processor clock, ENABLE */
	while (ms--) {
		while (!(SYST_CSR & (1u << 16))) { /* COUNTFLAG */
		}
	}
	SYST_CSR = 0;
}
{{- end -}}
{{- if eq .Core.Driver "stm32f1" -}}
/* GPIO driver for {{.MCU.Target}} ({{.MCU.Value}}), scaffolded by copperhead:
 * register writes from the STM32F10x reference manual (RM0008: RCC_CR,
 * RCC_CFGR, RCC_APB2ENR, FLASH_ACR, GPIOx_CRL/CRH/IDR/BSRR). GPIO numbers
 * are port * 16 + pin (pins.h).
 * Clock: {{.Core.Setup}}. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define RCC_CR REG(0x40021000u)
#define RCC_CFGR REG(0x40021004u)
#define RCC_APB2ENR REG(0x40021018u)
#define FLASH_ACR REG(0x40022000u)
#define GPIO_BASE(port) (0x40010800u + 0x400u * (port)) /* GPIOA..GPIOG */
#define GPIO_CR(port, pin) REG(GPIO_BASE(port) + ((pin) < 8 ? 0x00u : 0x04u))
#define GPIO_IDR(port) REG(GPIO_BASE(port) + 0x08u)
#define GPIO_ODR(port) REG(GPIO_BASE(port) + 0x0Cu)
#define GPIO_BSRR(port) REG(GPIO_BASE(port) + 0x10u)

void board_init(void)
{
{{- if .Core.Crystal}}
	/* HSE on, and wait until it is ready (RCC_CR HSEON bit 16, HSERDY 17). */
	RCC_CR |= 1u << 16;
	while (!(RCC_CR & (1u << 17))) {
	}
	/* Flash wait states for {{.Core.Hz}} Hz before speeding up (FLASH_ACR
	 * LATENCY = {{.Core.Latency}}, prefetch buffer PRFTBE on). */
	FLASH_ACR = (1u << 4) | {{.Core.Latency}}u;
	/* PLL from HSE (PLLSRC bit 16), x{{.Core.PLLMul}} (PLLMUL bits 21:18 = {{.Core.PLLMulBits}}){{if .Core.APB1Div2}};
	 * APB1 = HCLK/2 (PPRE1 bits 10:8 = 100) to stay at 36 MHz or less{{end}}. */
	RCC_CFGR = (RCC_CFGR & ~((0xFu << 18) | (1u << 17) | (1u << 16) | (0x7u << 8))) |
		({{.Core.PLLMulBits}}u << 18) | (1u << 16){{if .Core.APB1Div2}} | (0x4u << 8){{end}};
	/* PLL on, wait PLLRDY (RCC_CR PLLON bit 24, PLLRDY 25). */
	RCC_CR |= 1u << 24;
	while (!(RCC_CR & (1u << 25))) {
	}
	/* SYSCLK from the PLL (SW = 10), wait until SWS says so. */
	RCC_CFGR = (RCC_CFGR & ~0x3u) | 0x2u;
	while ((RCC_CFGR & (0x3u << 2)) != (0x2u << 2)) {
	}
{{- else}}
	/* The core stays on the 8 MHz HSI it starts on: no crystal to switch
	 * to ({{.Core.Setup}}). */
{{- end}}
	RCC_APB2ENR |= 0x7Du; /* AFIO and the clocks of GPIO ports A-E */
}

/* mode sets a pin's 4-bit MODE/CNF field. */
static void mode(unsigned gpio, uint32_t bits)
{
	unsigned port = gpio / 16, pin = gpio % 16, shift = (pin % 8) * 4;
	GPIO_CR(port, pin) = (GPIO_CR(port, pin) & ~(0xFu << shift)) | (bits << shift);
}

void gpio_output(unsigned gpio)
{
	mode(gpio, 0x2u); /* output push-pull, 2 MHz */
}

void gpio_input_pullup(unsigned gpio)
{
	mode(gpio, 0x8u); /* input with pull-up/down; ODR=1 selects pull-up */
	GPIO_ODR(gpio / 16) |= 1u << (gpio % 16);
}

void gpio_write(unsigned gpio, int level)
{
	GPIO_BSRR(gpio / 16) = 1u << (gpio % 16 + (level ? 0 : 16));
}

int gpio_read(unsigned gpio)
{
	return (GPIO_IDR(gpio / 16) >> (gpio % 16)) & 1u;
}

{{template "systick"}}
{{- else if eq .Core.Driver "rp2040" -}}
/* GPIO driver for {{.MCU.Target}}, scaffolded by copperhead: register writes
 * from the RP2040 datasheet (XOSC, PLL_SYS, CLOCKS, RESETS, IO_BANK0 FUNCSEL=SIO,
 * PADS_BANK0, SIO).
 * Clock: {{.Core.Setup}}. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define XOSC_CTRL REG(0x40024000u)    /* datasheet §2.16.7 */
#define XOSC_STATUS REG(0x40024004u)
#define XOSC_STARTUP REG(0x4002400cu)
#define CLK_REF_CTRL REG(0x40008030u) /* datasheet §2.15.7 */
#define CLK_REF_SELECTED REG(0x40008038u)
#define CLK_SYS_CTRL REG(0x4000803cu)
#define CLK_SYS_SELECTED REG(0x40008044u)
#define RESETS_RESET_SET REG(0x4000c000u + 0x2000u) /* atomic set alias */
#define RESETS_RESET_CLR REG(0x4000c000u + 0x3000u) /* atomic clear alias */
#define RESETS_RESET_DONE REG(0x4000c008u)
#define PLL_SYS_CS REG(0x40028000u)        /* datasheet §2.18.4 */
#define PLL_SYS_PWR REG(0x40028004u)
#define PLL_SYS_FBDIV_INT REG(0x40028008u)
#define PLL_SYS_PRIM REG(0x4002800cu)
#define IO_BANK0_CTRL(n) REG(0x40014004u + 8u * (n))
#define PADS_BANK0_GPIO(n) REG(0x4001c004u + 4u * (n))
#define SIO_GPIO_IN REG(0xd0000004u)
#define SIO_GPIO_OUT_SET REG(0xd0000014u)
#define SIO_GPIO_OUT_CLR REG(0xd0000018u)
#define SIO_GPIO_OE_SET REG(0xd0000024u)
#define SIO_GPIO_OE_CLR REG(0xd0000028u)

#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PLL_SYS (1u << 12)

void board_init(void)
{
{{- if .Core.Crystal}}
	/* XOSC: startup delay (units of 256 crystal cycles), FREQ_RANGE
	 * 1_15MHZ (0xaa0) and ENABLE (0xfab), then wait STATUS.STABLE. */
	XOSC_STARTUP = {{.Core.XoscDelay}}u;
	XOSC_CTRL = (0xfabu << 12) | 0xaa0u;
	while (!(XOSC_STATUS & (1u << 31))) {
	}
	/* clk_ref from xosc_clksrc (SRC = 2), clk_sys from clk_ref (SRC = 0):
	 * glitchless muxes, so wait for SELECTED to follow. */
	CLK_REF_CTRL = 2u;
	while (!(CLK_REF_SELECTED & (1u << 2))) {
	}
	CLK_SYS_CTRL = 0u;
	while (!(CLK_SYS_SELECTED & 1u)) {
	}
{{- if .Core.FBDiv}}
	/* PLL_SYS (datasheet §2.18, as the Pico SDK's pll_init): out of reset,
	 * REFDIV 1, FBDIV {{.Core.FBDiv}} (VCO {{.Core.FBDiv}} x the crystal), power the
	 * PLL and VCO up (PWR PD bit 0, VCOPD bit 5) and wait CS.LOCK, then
	 * POSTDIV1 {{.Core.PostDiv1}} (bits 18:16), POSTDIV2 {{.Core.PostDiv2}} (bits 14:12) and the
	 * post dividers powered up (POSTDIVPD bit 3). */
	RESETS_RESET_SET = RESET_PLL_SYS;
	RESETS_RESET_CLR = RESET_PLL_SYS;
	while (!(RESETS_RESET_DONE & RESET_PLL_SYS)) {
	}
	PLL_SYS_CS = 1u;
	PLL_SYS_FBDIV_INT = {{.Core.FBDiv}}u;
	PLL_SYS_PWR &= ~((1u << 0) | (1u << 5));
	while (!(PLL_SYS_CS & (1u << 31))) {
	}
	PLL_SYS_PRIM = ({{.Core.PostDiv1}}u << 16) | ({{.Core.PostDiv2}}u << 12);
	PLL_SYS_PWR &= ~(1u << 3);
	/* clk_sys from clksrc_clk_sys_aux (SRC = 1) with AUXSRC (bits 7:5) =
	 * 0, clksrc_pll_sys: AUXSRC is already 0 from the switch to clk_ref
	 * above (it may change only while SRC is clk_ref), then the glitchless
	 * mux switches; wait for SELECTED to say aux (bit 1). */
	CLK_SYS_CTRL = (0u << 5) | 1u;
	while (!(CLK_SYS_SELECTED & (1u << 1))) {
	}
{{- end}}
{{- else}}
	/* The core stays on the ring oscillator: no crystal to switch to
	 * ({{.Core.Setup}}). */
{{- end}}
	RESETS_RESET_CLR = RESET_IO_BANK0 | RESET_PADS_BANK0;
	while ((RESETS_RESET_DONE & (RESET_IO_BANK0 | RESET_PADS_BANK0)) != (RESET_IO_BANK0 | RESET_PADS_BANK0)) {
	}
}

static void sio(unsigned gpio)
{
	IO_BANK0_CTRL(gpio) = 5u; /* FUNCSEL = SIO */
}

void gpio_output(unsigned gpio)
{
	sio(gpio);
	SIO_GPIO_OE_SET = 1u << gpio;
}

void gpio_input_pullup(unsigned gpio)
{
	sio(gpio);
	SIO_GPIO_OE_CLR = 1u << gpio;
	/* input enabled, pull-up on, pull-down off */
	PADS_BANK0_GPIO(gpio) = (PADS_BANK0_GPIO(gpio) & ~(1u << 2)) | (1u << 6) | (1u << 3);
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		SIO_GPIO_OUT_SET = 1u << gpio;
	} else {
		SIO_GPIO_OUT_CLR = 1u << gpio;
	}
}

int gpio_read(unsigned gpio)
{
	return (SIO_GPIO_IN >> gpio) & 1u;
}

{{template "systick"}}
{{- else if eq .Core.Driver "nrf52" -}}
/* GPIO driver for {{.MCU.Target}} ({{.MCU.Value}}), scaffolded by copperhead:
 * register writes from Nordic's nRF52832/nRF52840 product specifications
 * (CLOCK at 0x40000000: TASKS_HFCLKSTART 0x000, EVENTS_HFCLKSTARTED 0x100;
 * GPIO P0 at 0x50000000, P1 at 0x50000300: OUTSET 0x508, OUTCLR 0x50C,
 * IN 0x510, PIN_CNF[n] 0x700 + 4n). GPIO numbers are port * 32 + pin
 * (P1.02 is 34; pins.h).
 * Clock: {{.Core.Setup}}. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define CLOCK_TASKS_HFCLKSTART REG(0x40000000u)
#define CLOCK_EVENTS_HFCLKSTARTED REG(0x40000100u)
#define GPIO_BASE(gpio) (0x50000000u + 0x300u * ((gpio) / 32u))
#define GPIO_OUTSET(gpio) REG(GPIO_BASE(gpio) + 0x508u)
#define GPIO_OUTCLR(gpio) REG(GPIO_BASE(gpio) + 0x50Cu)
#define GPIO_IN(gpio) REG(GPIO_BASE(gpio) + 0x510u)
#define GPIO_PIN_CNF(gpio) REG(GPIO_BASE(gpio) + 0x700u + 4u * ((gpio) % 32u))

void board_init(void)
{
{{- if .Core.Crystal}}
	/* Start the 32 MHz HFXO and wait for it. */
	CLOCK_EVENTS_HFCLKSTARTED = 0;
	CLOCK_TASKS_HFCLKSTART = 1;
	while (!CLOCK_EVENTS_HFCLKSTARTED) {
	}
{{- else}}
	/* The core runs from HFINT; the GPIO block needs no clock enable. */
{{- end}}
}

void gpio_output(unsigned gpio)
{
	GPIO_PIN_CNF(gpio) = 1u; /* DIR = output, input buffer connected, no pull, S0S1 */
}

void gpio_input_pullup(unsigned gpio)
{
	GPIO_PIN_CNF(gpio) = 3u << 2; /* DIR = input, INPUT = connect, PULL = pull-up */
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		GPIO_OUTSET(gpio) = 1u << (gpio % 32u);
	} else {
		GPIO_OUTCLR(gpio) = 1u << (gpio % 32u);
	}
}

int gpio_read(unsigned gpio)
{
	return (GPIO_IN(gpio) >> (gpio % 32u)) & 1u;
}

{{template "systick"}}
{{- else if eq .Core.Driver "samd" -}}
/* GPIO driver for {{.MCU.Target}} ({{.MCU.Value}}), scaffolded by copperhead:
 * register writes from Microchip's SAM D21 datasheet (PORT at 0x41004400 on
 * SAM D1x/D2x, 0x41008000 on D5x/E5x; groups 0x80 apart: DIRCLR 0x04,
 * DIRSET 0x08, OUTCLR 0x14, OUTSET 0x18, IN 0x20, PINCFG[n] 0x40 + n with
 * PMUXEN bit 0, INEN bit 1, PULLEN bit 2). The PORT's bus clock is on out of
 * reset. GPIO numbers are group * 32 + pin (PA05 is 5, PB02 is 34; pins.h).
 * Clock: {{.Core.Setup}}. */
#include <stdint.h>

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define PORT_GROUP(gpio) ({{printf "0x%08Xu" .Core.PortBase}} + 0x80u * ((gpio) / 32u))
#define PORT_DIRCLR(gpio) REG(PORT_GROUP(gpio) + 0x04u)
#define PORT_DIRSET(gpio) REG(PORT_GROUP(gpio) + 0x08u)
#define PORT_OUTCLR(gpio) REG(PORT_GROUP(gpio) + 0x14u)
#define PORT_OUTSET(gpio) REG(PORT_GROUP(gpio) + 0x18u)
#define PORT_IN(gpio) REG(PORT_GROUP(gpio) + 0x20u)
#define PORT_PINCFG(gpio) (*(volatile uint8_t *)(PORT_GROUP(gpio) + 0x40u + (gpio) % 32u))

#define PINCFG_INEN (1u << 1)
#define PINCFG_PULLEN (1u << 2)

{{- if and .Core.Crystal .Core.XoscIMult}}
/* Clock registers of SAM D5x/E5x (Microchip's samd51 CMSIS headers:
 * instance/oscctrl.h, gclk.h; component/oscctrl.h, gclk.h). */
#define OSCCTRL_STATUS REG(0x40001010u) /* bit 0 XOSCRDY0 */
#define OSCCTRL_XOSCCTRL0 REG(0x40001014u)
#define XOSC_ENABLE (1u << 1)
#define XOSC_XTALEN (1u << 2)   /* a crystal on XIN0/XOUT0, not a clock in */
#define XOSC_IPTAT_Pos 9u       /* bits 10:9 */
#define XOSC_IMULT_Pos 11u      /* bits 14:11 */
#define XOSC_STARTUP_Pos 20u    /* bits 23:20: 2^n OSCULP32K cycles */
#define GCLK_SYNCBUSY REG(0x40001C04u) /* bit 2 GENCTRL0 */
#define GCLK_GENCTRL0 REG(0x40001C20u)
#define GENCTRL_SRC_XOSC0 0x0u /* SRC bits 3:0: XOSC0 is 0x0 */
#define GENCTRL_GENEN (1u << 8)
{{- else if .Core.Crystal}}
/* Clock registers of SAM D1x/D2x (Microchip's samd21 CMSIS headers:
 * instance/sysctrl.h, gclk.h, nvmctrl.h). */
#define SYSCTRL_PCLKSR REG(0x4000080Cu) /* bit 0 XOSCRDY */
#define SYSCTRL_XOSC (*(volatile uint16_t *)0x40000810u)
#define XOSC_ENABLE (1u << 1)
#define XOSC_XTALEN (1u << 2)  /* a crystal on XIN/XOUT, not a clock in */
#define XOSC_GAIN_Pos 8u       /* bits 10:8 */
#define XOSC_STARTUP_Pos 12u   /* bits 15:12: 2^n OSCULP32K cycles */
#define GCLK_STATUS (*(volatile uint8_t *)0x40000C01u) /* bit 7 SYNCBUSY */
#define GCLK_GENCTRL REG(0x40000C04u)
#define GENCTRL_SRC_XOSC (0x00u << 8) /* SRC bits 12:8: XOSC is 0x00 */
#define GENCTRL_GENEN (1u << 16)
#define NVMCTRL_CTRLB REG(0x41004004u)
#define CTRLB_RWS_Pos 1u /* bits 4:1, read wait states */
{{- end}}

void board_init(void)
{
{{- if and .Core.Crystal .Core.XoscIMult}}
	/* XOSC0 from the crystal: IMULT {{.Core.XoscIMult}}, IPTAT {{.Core.XoscIPTAT}} for {{.Core.Hz}} Hz, STARTUP 5
	 * (32 OSCULP32K cycles, about 1 ms), ONDEMAND off so it runs now;
	 * wait for XOSCRDY0. Flash wait states: NVMCTRL AUTOWS, on out of
	 * reset, follows the clock. */
	OSCCTRL_XOSCCTRL0 = (5u << XOSC_STARTUP_Pos) | ({{.Core.XoscIMult}}u << XOSC_IMULT_Pos) | ({{.Core.XoscIPTAT}}u << XOSC_IPTAT_Pos) |
		XOSC_XTALEN | XOSC_ENABLE;
	while (!(OSCCTRL_STATUS & 1u)) {
	}
	/* GCLK generator 0 (GCLK_MAIN, divide by 1) from XOSC0, and wait for
	 * the write to synchronise. */
	GCLK_GENCTRL0 = GENCTRL_GENEN | GENCTRL_SRC_XOSC0;
	while (GCLK_SYNCBUSY & (1u << 2)) {
	}
{{- else if .Core.Crystal}}
	/* Flash read wait states for {{.Core.Hz}} Hz before the clock rises. */
	NVMCTRL_CTRLB = (NVMCTRL_CTRLB & ~(0xFu << CTRLB_RWS_Pos)) | ({{.Core.Latency}}u << CTRLB_RWS_Pos);
	/* XOSC from the crystal: GAIN {{.Core.XoscGain}} for {{.Core.Hz}} Hz, STARTUP 5
	 * (32 OSCULP32K cycles, about 1 ms), ONDEMAND off so it runs now;
	 * wait for XOSCRDY. */
	SYSCTRL_XOSC = (5u << XOSC_STARTUP_Pos) | ({{.Core.XoscGain}}u << XOSC_GAIN_Pos) | XOSC_XTALEN | XOSC_ENABLE;
	while (!(SYSCTRL_PCLKSR & 1u)) {
	}
	/* GCLK generator 0 (the CPU's, divide by 1) from XOSC, and wait for
	 * the write to synchronise. */
	GCLK_GENCTRL = GENCTRL_GENEN | GENCTRL_SRC_XOSC | 0u /* ID = 0 */;
	while (GCLK_STATUS & 0x80u) {
	}
{{- else}}
	/* The core stays on the clock it starts on ({{.Core.Setup}}). */
{{- end}}
}

void gpio_output(unsigned gpio)
{
	PORT_PINCFG(gpio) = PINCFG_INEN; /* GPIO (PMUXEN off), readable back */
	PORT_DIRSET(gpio) = 1u << (gpio % 32u);
}

void gpio_input_pullup(unsigned gpio)
{
	PORT_DIRCLR(gpio) = 1u << (gpio % 32u);
	/* input enabled with the pull resistor; OUT = 1 makes it a pull-up */
	PORT_PINCFG(gpio) = PINCFG_INEN | PINCFG_PULLEN;
	PORT_OUTSET(gpio) = 1u << (gpio % 32u);
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		PORT_OUTSET(gpio) = 1u << (gpio % 32u);
	} else {
		PORT_OUTCLR(gpio) = 1u << (gpio % 32u);
	}
}

int gpio_read(unsigned gpio)
{
	return (PORT_IN(gpio) >> (gpio % 32u)) & 1u;
}

{{template "systick"}}
{{- else -}}
/* GPIO driver stubs for {{.MCU.Target}}, scaffolded by copperhead. They build
 * and link so the happy path compiles against the toolchain; TODO: replace
 * each body with the part's register writes (or the vendor HAL) before
 * expecting pins to move (copperhead writes real drivers for stm32f1,
 * rp2040, nrf52 and samd only). The shadow keeps gpio_read/gpio_write consistent
 * meanwhile. */
#include <stdint.h>

#include "board.h"

static volatile uint32_t shadow[8]; /* one bit per GPIO number, up to 256 */

void board_init(void)
{
	/* TODO: clocks, and enable the GPIO ports' clocks */
}

void gpio_output(unsigned gpio)
{
	(void)gpio; /* TODO: set the pin's mode to output */
}

void gpio_input_pullup(unsigned gpio)
{
	shadow[(gpio / 32) % 8] |= 1u << (gpio % 32); /* TODO: input with pull-up */
}

void gpio_write(unsigned gpio, int level)
{
	if (level) {
		shadow[(gpio / 32) % 8] |= 1u << (gpio % 32);
	} else {
		shadow[(gpio / 32) % 8] &= ~(1u << (gpio % 32));
	}
}

int gpio_read(unsigned gpio)
{
	return (shadow[(gpio / 32) % 8] >> (gpio % 32)) & 1u;
}

void delay_ms(unsigned ms)
{
	/* TODO: calibrate for the core clock, or use SysTick */
	for (volatile uint32_t i = 0; i < ms * 1000u; i++) {
	}
}
{{- end}}
